-- Adds or removes one ban (docs/rate-limit.md#bans), bumps the bans version
-- and announces it. Adding drops lapsed bans first when the bound is reached,
-- and keeps the hash alive at least until the new ban lapses.
-- KEYS: [1] bans hash, ban id → JSON StoredBan   cfg:{…}:bans
--       [2] bans version counter                cfg:{…}:bans:version
-- ARGV: [1] 'add' or 'del'
--       [2] ban id
--       [3] add: JSON StoredBan (with untilMs); del: unused
--       [4] add: most bans held; del: unused
--       [5] add: now, epoch ms (the app clock the bans' untilMs is on); del: unused
--       [6] pub/sub channel that announces the new bans version
-- Returns: add: {1, new version} when stored; {0, bans held} at the bound (nothing written)
--          del: {1, new version, removed JSON} when removed; {0, version} when there was no such ban
if ARGV[1] == 'del' then
  local old = redis.call('HGET', KEYS[1], ARGV[2])
  if not old then
    return {0, tonumber(redis.call('GET', KEYS[2]) or '0')}
  end
  redis.call('HDEL', KEYS[1], ARGV[2])
  local v = redis.call('INCR', KEYS[2])
  redis.call('PUBLISH', ARGV[6], v)
  return {1, v, old}
end
local max = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
if redis.call('HLEN', KEYS[1]) >= max then
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    if (tonumber(cjson.decode(all[i + 1]).untilMs) or 0) <= now then
      redis.call('HDEL', KEYS[1], all[i])
    end
  end
end
local held = redis.call('HLEN', KEYS[1])
if held >= max then
  return {0, held}
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
local left = tonumber(cjson.decode(ARGV[3]).untilMs) - now + 60000
local ttl = redis.call('PTTL', KEYS[1])
if ttl < left then
  redis.call('PEXPIRE', KEYS[1], math.floor(left))
end
local v = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[6], v)
return {1, v}

-- KEYS: [1] pointer hash of the filter {active, previous, seq}; [2] bits of the new build; [3] info of the new build;
--       [4] bits of the expected active build; [5] info of the expected active build (may not exist)
-- ARGV: [1] expected active version ('' = none); [2] expected seq; [3] new version; [4] new bits (binary);
--       [5] new info (JSON); [6] TTL ms; [7] pub/sub channel; [8] filter name
-- Returns: {1, displaced} when the new build is active (displaced = version no longer kept, '' = none);
--          {0, active, previous, seq} when the pointer moved on since the caller read it (nothing written)
local active = redis.call('HGET', KEYS[1], 'active') or ''
local previous = redis.call('HGET', KEYS[1], 'previous') or ''
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if active ~= ARGV[1] or seq ~= tonumber(ARGV[2]) then
  return {0, active, previous, seq}
end
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[6])
redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[6])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
redis.call('PEXPIRE', KEYS[5], ARGV[6])
if active ~= '' then
  redis.call('HSET', KEYS[1], 'previous', active)
else
  redis.call('HDEL', KEYS[1], 'previous')
end
redis.call('HSET', KEYS[1], 'active', ARGV[3], 'seq', seq)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PUBLISH', ARGV[7], '{"type":"activated","filter":"' .. ARGV[8] .. '","version":' .. ARGV[3] .. ',"seq":' .. seq .. '}')
return {1, previous}

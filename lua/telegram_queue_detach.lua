-- Takes the jobs of a held lane whose chat moved out of it, once lua/telegram_queue_adopt.lua took them in.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] the old lane [3] lease token [4] head job id [5] now, epoch ms; [6..] the ids moved
-- Returns: 1 done (the lease ends); 0 the lease was lost (nothing changes)
-- A job's hash is deleted here only while it still names the old lane (another partition has it now); in the
-- new lane's own partition the hash was rewritten in place and stays. The old lane keeps its other jobs (another
-- app's) and is due from its next job's not_before; without any it is gone.
local P, lane, tok, head, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local LANES, LEASE = KEYS[1], P .. ':lease'
local lk = P .. ':l:' .. lane
if redis.call('HGET', LEASE, lane) ~= tok or redis.call('LINDEX', lk, 0) ~= head then return 0 end
redis.call('HDEL', LEASE, lane)
for i = 6, #ARGV do
  local id = ARGV[i]
  local jk = P .. ':j:' .. id
  redis.call('LREM', lk, 1, id)
  if redis.call('HGET', jk, 'lane') == lane then
    local ck = redis.call('HGET', jk, 'ck')
    if ck and ck ~= '' then
      local ckk = P .. ':c:' .. lane .. '\n' .. ck
      if redis.call('GET', ckk) == id then redis.call('DEL', ckk) end
    end
    redis.call('DEL', jk)
    redis.call('DECR', P .. ':count')
  end
end
local prio = redis.call('HGET', LANES, lane)
if prio then redis.call('ZREM', P .. ':d:' .. prio, lane) end
local nxt = redis.call('LINDEX', lk, 0)
if nxt then
  local j = redis.call('HMGET', P .. ':j:' .. nxt, 'prio', 'nb')
  local np = j[1] or 'n'
  redis.call('ZADD', P .. ':d:' .. np, math.max(tonumber(j[2]) or 0, now), lane)
  redis.call('HSET', LANES, lane, np)
else
  redis.call('HDEL', LANES, lane)
end
return 1

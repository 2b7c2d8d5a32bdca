-- Cancels a queued job of one queue partition: it leaves its lane and is kept (cancelled) for the retention.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] job id [3] now, epoch ms [4] retention ms
-- Returns: 1 cancelled; 0 unknown here; -1 being sent (its lane is held with it at the head);
--   -2 already finished (sent, dead, collapsed, cancelled)
-- Only a job that has not left can be cancelled: the head of a held lane may be in a Bot API call. A job
-- later in a held lane is not being sent and may go. A cancelled head hands the lane to its next job.
local P, id, now, keep = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local LANES, LEASE = KEYS[1], P .. ':lease'
local jk = P .. ':j:' .. id
local j = redis.call('HMGET', jk, 'state', 'lane', 'ck')
local state, lane, ck = j[1], j[2], j[3]
if not state then return 0 end
if state ~= 'queued' and state ~= 'waiting' and state ~= 'sending' then return -2 end
local lk = P .. ':l:' .. lane
local head = redis.call('LINDEX', lk, 0) == id
if head and (state == 'sending' or redis.call('HEXISTS', LEASE, lane) == 1) then return -1 end
if redis.call('LREM', lk, 1, id) == 0 then return -2 end
redis.call('HSET', jk, 'state', 'cancelled', 'finished', now, 'wait', '')
redis.call('PEXPIRE', jk, keep)
redis.call('DECR', P .. ':count')
if ck and ck ~= '' then
  local ckk = P .. ':c:' .. lane .. '\n' .. ck
  if redis.call('GET', ckk) == id then redis.call('DEL', ckk) end
end
if head then
  local prio = redis.call('HGET', LANES, lane) or 'n'
  redis.call('ZREM', P .. ':d:' .. prio, lane)
  local nxt = redis.call('LINDEX', lk, 0)
  if nxt then
    local n = redis.call('HMGET', P .. ':j:' .. nxt, 'prio', 'nb')
    local np = n[1] or 'n'
    redis.call('ZADD', P .. ':d:' .. np, math.max(tonumber(n[2]) or 0, now), lane)
    redis.call('HSET', LANES, lane, np)
  else
    redis.call('HDEL', LANES, lane)
  end
end
return 1

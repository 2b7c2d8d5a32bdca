-- Lane helpers of the outbound queue's scripts (telegram_queue_*.lua that include it): P is the partition's key
-- prefix, LANES its lanes hash.

-- True for a job that has not left its lane (queued, waiting, or the head being sent).
local function job_live(state)
  return state == 'queued' or state == 'waiting' or state == 'sending'
end

-- The lane's head changed: the lane is due from its new head's not_before (at least `now`), at its priority, or
-- leaves the due sets when it has no job.
local function lane_hand_on(P, LANES, lane, now)
  local prio = redis.call('HGET', LANES, lane) or 'n'
  redis.call('ZREM', P .. ':d:' .. prio, lane)
  local nxt = redis.call('LINDEX', P .. ':l:' .. lane, 0)
  if nxt then
    local n = redis.call('HMGET', P .. ':j:' .. nxt, 'prio', 'nb')
    local np = n[1] or 'n'
    redis.call('ZADD', P .. ':d:' .. np, math.max(tonumber(n[2]) or 0, now), lane)
    redis.call('HSET', LANES, lane, np)
  else
    redis.call('HDEL', LANES, lane)
  end
end

-- Takes job `id` out of `lane` as cancelled, kept `keep` ms; its collapse key `ck` is free again; a cancelled
-- head hands the lane on. Returns 1, or -2 when the job is not in the lane (it left already).
local function cancel_out(P, LANES, id, lane, ck, now, keep)
  local jk, lk = P .. ':j:' .. id, P .. ':l:' .. lane
  local head = redis.call('LINDEX', lk, 0) == id
  if redis.call('LREM', lk, 1, id) == 0 then return -2 end
  redis.call('HSET', jk, 'state', 'cancelled', 'finished', now, 'wait', '')
  redis.call('PEXPIRE', jk, keep)
  redis.call('DECR', P .. ':count')
  if ck and ck ~= '' then
    local ckk = P .. ':c:' .. lane .. '\n' .. ck
    if redis.call('GET', ckk) == id then redis.call('DEL', ckk) end
  end
  if head then lane_hand_on(P, LANES, lane, now) end
  return 1
end

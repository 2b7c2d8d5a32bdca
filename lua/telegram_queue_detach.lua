-- Takes the jobs of a held lane whose chat moved out of it, once lua/telegram_queue_adopt.lua took them in.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] the old lane [3] lease token [4] head job id [5] now, epoch ms [6] retention ms [7] n;
--   [8..7+n] the ids moved (taken in now or before); then the ids cancelled while moving (the adopt left them out)
-- Includes: lib/queue_lane.lua
-- Returns: 1 done (the lease ends); 0 the lease was lost (nothing changes)
-- A moved job leaves the old lane, and its collapse key there; its hash is deleted here only while it still names
-- the old lane (another partition has it now; counted out unless a cancel took it out already); in the new lane's
-- own partition the hash was rewritten in place and stays. A job cancelled while moving leaves the old lane
-- cancelled, as its cancel does (lua/telegram_queue_cancel.lua `source`, which may not have come yet). The old
-- lane keeps its other jobs (another app's) and is due from its next job's not_before; without any it is gone.
local P, lane, tok, head, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local keep, n = tonumber(ARGV[6]), tonumber(ARGV[7])
local LANES, LEASE = KEYS[1], P .. ':lease'
local lk = P .. ':l:' .. lane
if redis.call('HGET', LEASE, lane) ~= tok or redis.call('LINDEX', lk, 0) ~= head then return 0 end
redis.call('HDEL', LEASE, lane)
for i = 8, 7 + n do
  local id = ARGV[i]
  local jk = P .. ':j:' .. id
  local out = redis.call('LREM', lk, 1, id)
  local h = redis.call('HMGET', jk, 'lane', 'ck')
  if h[2] and h[2] ~= '' then
    local ckk = P .. ':c:' .. lane .. '\n' .. h[2]
    if redis.call('GET', ckk) == id then redis.call('DEL', ckk) end
  end
  if h[1] == lane then
    redis.call('DEL', jk)
    if out == 1 then redis.call('DECR', P .. ':count') end
  end
end
for i = 8 + n, #ARGV do
  local id = ARGV[i]
  local h = redis.call('HMGET', P .. ':j:' .. id, 'state', 'lane', 'ck')
  if h[2] == lane and job_live(h[1]) then cancel_out(P, LANES, id, lane, h[3], now, keep) end
end
lane_hand_on(P, LANES, lane, now)
return 1

-- Marks the jobs of a held lane whose chat moved (`migrate_to_chat_id`), the first step of the lane's move.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] the old lane [3] lease token [4] head job id [5] the new chat id, sealed; [6..] the ids
--   to move (the head's app's jobs of the lane, oldest first)
-- Includes: lib/queue_lane.lua
-- Returns: {} when the lease was lost (nothing changes); else { 1, then per job still in the lane, oldest first,
--   { id, its hash as HGETALL } }
-- A job still in the old lane and naming it gets the mark `mv` (the new chat, sealed): from now on a cancel of
-- it cancels it in both lanes (lua/telegram_queue_cancel.lua), an enqueue no longer collapses it, and a claim
-- of it (the move cut short) moves it again instead of sending it. A job no longer in the lane (cancelled or
-- collapsed since the lane was read) is left out; one rewritten in place for the new lane by an interrupted
-- move (one partition) is returned unmarked. The hashes are read here, with the marks: what the adopt copies
-- is what the lane held at this step.
local P, lane, tok, head, chat = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local lk = P .. ':l:' .. lane
if redis.call('HGET', P .. ':lease', lane) ~= tok or redis.call('LINDEX', lk, 0) ~= head then return {} end
local inlane = {}
for _, id in ipairs(redis.call('LRANGE', lk, 0, -1)) do inlane[id] = true end
local out = { 1 }
for i = 6, #ARGV do
  local id = ARGV[i]
  local jk = P .. ':j:' .. id
  local h = redis.call('HMGET', jk, 'lane', 'state')
  if inlane[id] and h[1] then
    if h[1] == lane and job_live(h[2]) then redis.call('HSET', jk, 'mv', chat) end
    if h[1] ~= lane or job_live(h[2]) then out[#out + 1] = { id, redis.call('HGETALL', jk) } end
  end
end
return out

-- Cancels a queued job of one queue partition: it leaves its lane and is kept (cancelled) for the retention.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] job id [3] now, epoch ms [4] retention ms [5] step: '' (the partition the job's id key
--   names), `dest` or `source` (a job whose lane is moving, below) [6] dest: the new lane; source: the old lane
-- Includes: lib/queue_lane.lua
-- Returns: 1 cancelled; 0 unknown here; -1 being sent (its lane is held with it at the head);
--   -2 already finished (sent, dead, collapsed, cancelled); { 2, the move's mark (the new chat id, sealed), its
--   lane }: the job is moving (its lane's chat moved, lua/telegram_queue_mark.lua marked it): nothing changed,
--   cancel it with `dest` in the new lane's partition, then with `source` here
-- Only a job that has not left can be cancelled: the head of a held lane may be in a Bot API call. A job
-- later in a held lane is not being sent and may go. A cancelled head hands the lane to its next job.
-- A moving job is in the old lane and, once lua/telegram_queue_adopt.lua took it in, in the new one (maybe in
-- another partition). `dest`, in the new lane's partition: a copy taken in is cancelled as any job; else a
-- cancel mark `<prefix>:x:<id>` is left, and the adopt leaves the job out. `source`, in the old lane's
-- partition: the old copy leaves the old lane, cancelled (nothing when it is gone or was rewritten in place).
local P, id, now, keep, step, at = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6]
local LANES, LEASE = KEYS[1], P .. ':lease'
local jk = P .. ':j:' .. id
local j = redis.call('HMGET', jk, 'state', 'lane', 'ck', 'mv')
local state, lane, ck = j[1], j[2], j[3]
if step == 'source' then
  if lane ~= at or not job_live(state) then return 1 end
  return cancel_out(P, LANES, id, lane, ck, now, keep)
end
if step == 'dest' and lane ~= at then
  redis.call('SET', P .. ':x:' .. id, 1, 'PX', keep)
  return 1
end
if not state then return 0 end
if not job_live(state) then return -2 end
local head = redis.call('LINDEX', P .. ':l:' .. lane, 0) == id
if head and (state == 'sending' or redis.call('HEXISTS', LEASE, lane) == 1) then return -1 end
if step == '' and j[4] and j[4] ~= '' then return { 2, j[4], lane } end
return cancel_out(P, LANES, id, lane, ck, now, keep)

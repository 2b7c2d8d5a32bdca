-- Takes in the jobs of a chat that moved (`migrate_to_chat_id`) into the new chat's lane, in one queue partition.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] the new lane [3] the old lane [4] now, epoch ms [5] the new chat id, sealed [6] wake
--   channel ('' = none); then per job, oldest first: id, n, and n job-hash fields as name, value pairs (read
--   from the old lane's partition)
-- Returns: the ids taken in (a job whose hash here belongs to another lane is skipped: it was taken in already)
-- Each job's hash is written here (lane and chat changed, state queued, the move's mark `mv` cleared) unless it is here already for another
-- lane; the ids are merged into the new lane by posting time (`created`), behind a held head (it may be being
-- sent), a moved job first on a tie (it was queued before the move was known). The lane is due now (unless held).
-- The same partition as the old lane: the hash is the same key, only rewritten. lua/telegram_queue_detach.lua
-- then takes the jobs out of the old lane.
local P, lane, old, now, chat, wake = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local LANES, LEASE = KEYS[1], P .. ':lease'
local lk = P .. ':l:' .. lane
local moved, taken = {}, {}
local i = 7
while i <= #ARGV do
  local id, n = ARGV[i], tonumber(ARGV[i + 1])
  local jk = P .. ':j:' .. id
  local at = redis.call('HGET', jk, 'lane')
  if not at or at == old then
    if not at then
      redis.call('HSET', jk, unpack(ARGV, i + 2, i + 1 + 2 * n))
      redis.call('INCR', P .. ':count')
    end
    redis.call('HSET', jk, 'lane', lane, 'chat', chat, 'state', 'queued', 'wait', '', 'lost', '', 'mv', '')
    moved[#moved + 1] = { id, tonumber(redis.call('HGET', jk, 'created')) or 0 }
    taken[#taken + 1] = id
  end
  i = i + 2 + 2 * n
end
if #moved == 0 then return taken end
local there = redis.call('LRANGE', lk, 0, -1)
local held = redis.call('HEXISTS', LEASE, lane) == 1 and #there > 0
local out, k = {}, 1
if held then out[1] = there[1]; k = 2 end
for _, m in ipairs(moved) do
  while k <= #there and (tonumber(redis.call('HGET', P .. ':j:' .. there[k], 'created')) or 0) < m[2] do
    out[#out + 1] = there[k]; k = k + 1
  end
  out[#out + 1] = m[1]
end
for j = k, #there do out[#out + 1] = there[j] end
redis.call('DEL', lk)
redis.call('RPUSH', lk, unpack(out))
if not held then
  local had = redis.call('HGET', LANES, lane)
  if had then redis.call('ZREM', P .. ':d:' .. had, lane) end
  local h = redis.call('HMGET', P .. ':j:' .. out[1], 'prio', 'nb')
  local prio = h[1] or 'n'
  local due = math.max(now, tonumber(h[2]) or 0)
  redis.call('HSET', LANES, lane, prio)
  redis.call('ZADD', P .. ':d:' .. prio, due, lane)
  if wake ~= '' then redis.call('PUBLISH', wake, due) end
end
return taken

-- Takes in the jobs of a chat that moved (`migrate_to_chat_id`) into the new chat's lane, in one queue partition.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] the new lane [3] the old lane [4] now, epoch ms [5] the new chat id, sealed [6] wake
--   channel ('' = none) [7] retention ms; then per job, oldest first: id, n, and n job-hash fields as name,
--   value pairs (as lua/telegram_queue_mark.lua read them in the old lane's partition)
-- Returns: per job, in order: 1 taken in; 0 not taken (here already for another lane: taken in by an earlier,
--   interrupted move); -1 cancelled while moving (a cancel mark `<prefix>:x:<id>`, lua/telegram_queue_cancel.lua)
-- Each job's hash is written here (lane and chat changed, state queued, the move's mark `mv` cleared) unless it is
-- here already for another lane; the ids are merged into the new lane by posting time (`created`), behind a held
-- head (it may be being sent), a moved job first on a tie (it was queued before the move was known). The lane is
-- due now (unless held). The same partition as the old lane: the hash is the same key, only rewritten.
-- Collapse keys: a job taken in holds its key in the new lane. When the key's holder there is a job still
-- waiting (not the held head), the older of the two (by posting order) is collapsed by the newer, as an enqueue
-- would have done: one waiting job per key and lane. lua/telegram_queue_detach.lua then takes the jobs out of
-- the old lane.
local P, lane, old, now, chat, wake = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local keep = tonumber(ARGV[7])
local LANES, LEASE = KEYS[1], P .. ':lease'
local lk = P .. ':l:' .. lane
local status, moved, ismoved = {}, {}, {}
local i = 8
while i <= #ARGV do
  local id, n = ARGV[i], tonumber(ARGV[i + 1])
  local jk = P .. ':j:' .. id
  local at = redis.call('HGET', jk, 'lane')
  local st = 0
  if redis.call('EXISTS', P .. ':x:' .. id) == 1 then
    st = -1
  elseif not at or at == old then
    if not at then
      redis.call('HSET', jk, unpack(ARGV, i + 2, i + 1 + 2 * n))
      redis.call('INCR', P .. ':count')
    end
    redis.call('HSET', jk, 'lane', lane, 'chat', chat, 'state', 'queued', 'wait', '', 'lost', '', 'mv', '')
    moved[#moved + 1] = { id, tonumber(redis.call('HGET', jk, 'created')) or 0 }
    st = 1
  end
  status[#status + 1] = st
  i = i + 2 + 2 * n
end
if #moved == 0 then return status end
local there = redis.call('LRANGE', lk, 0, -1)
local held = redis.call('HEXISTS', LEASE, lane) == 1 and #there > 0
-- Collapse keys, in posting order of the moved jobs: `gone` are the jobs collapsed here.
local gone = {}
for _, m in ipairs(moved) do
  local ck = redis.call('HGET', P .. ':j:' .. m[1], 'ck')
  if ck and ck ~= '' then
    local ckk = P .. ':c:' .. lane .. '\n' .. ck
    local r = redis.call('GET', ckk)
    local newer = m[1]
    if r and r ~= m[1] then
      local rk = P .. ':j:' .. r
      local h = redis.call('HMGET', rk, 'state', 'lane', 'created')
      local waiting = (h[1] == 'queued' or h[1] == 'waiting') and h[2] == lane
      if waiting and not (held and there[1] == r) then
        -- The holder was posted first when it moved before this job, or earlier (a tie: the moved job first).
        local first = ismoved[r] or (tonumber(h[3]) or 0) < m[2]
        local older = first and r or m[1]
        newer = first and m[1] or r
        local ok = P .. ':j:' .. older
        redis.call('HSET', ok, 'state', 'collapsed', 'by', newer, 'finished', now)
        redis.call('PEXPIRE', ok, keep)
        redis.call('DECR', P .. ':count')
        gone[older] = true
      end
    end
    local dl = tonumber(redis.call('HGET', P .. ':j:' .. newer, 'deadline')) or now
    redis.call('SET', ckk, newer, 'PX', math.max(1, dl - now) + keep)
  end
  ismoved[m[1]] = true
end
local out, k = {}, 1
if held then out[1] = there[1]; k = 2 end
local function take_there(upto)
  while k <= #there and (upto == nil or (tonumber(redis.call('HGET', P .. ':j:' .. there[k], 'created')) or 0) < upto) do
    if not gone[there[k]] then out[#out + 1] = there[k] end
    k = k + 1
  end
end
for _, m in ipairs(moved) do
  if not gone[m[1]] then
    take_there(m[2])
    out[#out + 1] = m[1]
  end
end
take_there(nil)
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
return status

-- Queues notification jobs of one queue partition (all keys under its hash tag, built from the prefix as BullMQ
-- builds its keys: the lanes and jobs a call touches are not known before it runs).
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes` (routes the call to the partition's slot)
-- ARGV: [1] prefix `tgo:{<env>:<service>:q<k>}` [2] now, epoch ms [3] retention ms [4] wake channel ('' = none);
--   then per job, 11 fields:
--   id, lane, chat id, method, payload (JSON), scope, pinned bot ('' = none), priority (h|n|l), deadline ms,
--   not_before ms, collapse key ('' = none)
-- Returns: per job 1 queued, 2 queued replacing a waiting job (collapse), 0 duplicate (its id is known: nothing changes)
-- Publishes on the wake channel, when a lane became due-able, the earliest time one may be claimed (epoch ms): idle
-- workers of every instance wake without polling (a channel is no key: PUBLISH reaches every node of a Cluster).
-- Per lane: a list of job ids (FIFO); the lane is in exactly one due set `<prefix>:d:<prio>` (score: when it may
-- be claimed) while it has jobs; `<prefix>:lanes` says which. A newer job with the collapse key of a waiting job of
-- its lane (not the one being sent) replaces it: the old job is `collapsed` (by the new id), the new one goes last.
-- A job marked as moving out of the lane (`mv`, lua/telegram_queue_mark.lua) is not collapsed: its copy in the
-- new lane may be queued already, and would be sent anyway.
local P, now, keep, wake = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local LANES, LEASE = KEYS[1], P .. ':lease'
local out = {}
local due = nil
local n = (#ARGV - 4) / 11
for i = 1, n do
  local b = 4 + (i - 1) * 11
  local id, lane, chat, method, payload = ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], ARGV[b + 5]
  local scope, pin, prio, deadline, nb, ck = ARGV[b + 6], ARGV[b + 7], ARGV[b + 8], ARGV[b + 9], ARGV[b + 10], ARGV[b + 11]
  local jk = P .. ':j:' .. id
  if redis.call('EXISTS', jk) == 1 then
    out[i] = 0
  else
    redis.call('HSET', jk, 'id', id, 'lane', lane, 'chat', chat, 'method', method, 'payload', payload,
      'scope', scope, 'pin', pin, 'prio', prio, 'deadline', deadline, 'nb', nb, 'ck', ck,
      'state', 'queued', 'attempts', 0, 'created', now)
    local lk = P .. ':l:' .. lane
    if ck ~= '' then
      local ckk = P .. ':c:' .. lane .. '\n' .. ck
      local old = redis.call('GET', ckk)
      if old then
        local ojk = P .. ':j:' .. old
        local o = redis.call('HMGET', ojk, 'state', 'mv')
        local st, moving = o[1], o[2] and o[2] ~= ''
        local held = redis.call('HEXISTS', LEASE, lane) == 1 and redis.call('LINDEX', lk, 0) == old
        if (st == 'queued' or st == 'waiting') and not held and not moving then
          redis.call('LREM', lk, 1, old)
          redis.call('HSET', ojk, 'state', 'collapsed', 'by', id, 'finished', now)
          redis.call('PEXPIRE', ojk, keep)
          redis.call('DECR', P .. ':count')
          out[i] = 2
        end
      end
      redis.call('SET', ckk, id, 'PX', math.max(1, tonumber(deadline) - now) + keep)
    end
    redis.call('RPUSH', lk, id)
    redis.call('INCR', P .. ':count')
    if redis.call('HEXISTS', LANES, lane) == 0 then
      local at = math.max(now, tonumber(nb))
      redis.call('ZADD', P .. ':d:' .. prio, at, lane)
      redis.call('HSET', LANES, lane, prio)
      due = math.min(due or at, at)
    end
    out[i] = out[i] or 1
  end
end
if due and wake ~= '' then redis.call('PUBLISH', wake, due) end
return out

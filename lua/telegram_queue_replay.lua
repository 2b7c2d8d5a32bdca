-- Queues dead-lettered jobs of one queue partition again, each at the end of its lane.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] now, epoch ms [3] the new deadline, epoch ms [4] wake channel ('' = none) [5..] job ids
-- Returns: the ids replayed (dead ones only; others are left alone)
-- A replayed job starts over: attempts 0, no reason, the new deadline, no expiry while it waits. When a lane
-- became due, `now` is published on the wake channel (as an enqueue does): the partition's owner, on whichever
-- instance, claims it at once.
local P, now, deadline, wake = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local LANES = KEYS[1]
local out, due = {}, false
for i = 5, #ARGV do
  local id = ARGV[i]
  local jk = P .. ':j:' .. id
  if redis.call('ZSCORE', P .. ':dead', id) and redis.call('HGET', jk, 'state') == 'dead' then
    redis.call('ZREM', P .. ':dead', id)
    redis.call('HSET', jk, 'state', 'queued', 'attempts', 0, 'reason', '', 'err', '', 'finished', '',
      'wait', '', 'deadline', deadline, 'nb', now)
    redis.call('PERSIST', jk)
    local j = redis.call('HMGET', jk, 'lane', 'prio')
    redis.call('RPUSH', P .. ':l:' .. j[1], id)
    redis.call('INCR', P .. ':count')
    if redis.call('HEXISTS', LANES, j[1]) == 0 then
      redis.call('ZADD', P .. ':d:' .. j[2], now, j[1])
      redis.call('HSET', LANES, j[1], j[2])
      due = true
    end
    out[#out + 1] = id
  end
end
if due and wake ~= '' then redis.call('PUBLISH', wake, now) end
return out

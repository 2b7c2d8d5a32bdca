-- Beat of one outbound worker in the roster of the workers alive (they share the queue's partitions out by it).
-- KEYS: [1] sorted set of the workers `tgo:{<env>:<service>}:workers` (member: worker id, score: its last beat)
-- ARGV: [1] worker id (random per worker start) [2] now, epoch ms (app clock, as the queue's leases)
--   [3] liveness window ms (a worker is alive while its last beat is younger) [4] `beat`, or `leave` (a worker
--   that stops) [5] channel to announce a change of the roster on ('' = none)
-- Returns: the workers alive, flat: id, last beat ms, id, last beat ms, … (the caller's own included unless it left)
-- A change (a worker joined, left, or was found dead: its last beat older than the window) is published on the
-- channel (no extra round trip): every worker beats at once and shares the partitions out again.
local id, now, window, op, channel = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local changed = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
if op == 'leave' then
  changed = changed + redis.call('ZREM', KEYS[1], id)
else
  changed = changed + redis.call('ZADD', KEYS[1], now, id)
end
redis.call('PEXPIRE', KEYS[1], window * 2)
if changed > 0 and channel ~= '' then redis.call('PUBLISH', channel, op) end
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')

-- A Telegram send ended: its in-flight mark goes and, when Telegram answered, the answer is counted in its minute
-- and the send's departure record (lua/telegram_send_depart.lua) moves to NOW: the answer came back after the call
-- reached Telegram, so now is a time no earlier than its arrival. A send that left on its slot but arrived late (a
-- stalled process wrote it late, or the far end read it late) then counts in the departure window from when it may
-- have arrived, not from when it was let go, and the sends after it wait for that (no bunching at Telegram).
-- KEYS: (under the bot's hash tag) [1] in-flight zset [2] departures zset [3] the answer minute's hash
-- ARGV: [1] send id [2] answer: '' (none, nothing counted) | 'ok' | 'rate_limited' | 'other'
--   [3] answer hash lifetime ms
-- Returns: 1. Clock: Redis TIME.
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '' then return 1 end
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local d = redis.call('ZSCORE', KEYS[2], ARGV[1])
if d and tonumber(d) < now then redis.call('ZADD', KEYS[2], now, ARGV[1]) end
redis.call('HINCRBY', KEYS[3], 'n', 1)
if ARGV[2] == 'rate_limited' then redis.call('HINCRBY', KEYS[3], 'r', 1) end
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[3]))
return 1

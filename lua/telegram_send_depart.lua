-- The last check before a reserved Telegram send leaves: the bot is not cooling down (a 429 another worker got
-- while this one waited for its slot), and fewer than ARGV[2] sends of the bot left in the last ARGV[1] ms — a
-- sliding window, as Telegram counts, a little longer than its second to absorb the arrival jitter of a loaded
-- machine (sends late on their slot bunch with the next ones). Records this departure, in the window and in the
-- sends kept as departed for ARGV[4] ms (a reclaimed lease's send left, or provably never did). Clock: Redis TIME.
-- KEYS: (under the bot's hash tag) [1] status hash [2] departures zset (member: send id, score: ms)
--   [3] departed sends kept zset (member: send id, score: ms)
-- ARGV: [1] window ms [2] most departures in a window [3] send id [4] ms a departed send is kept
-- Returns: { 'go' } | { 'cool', cooldown end epoch ms } | { 'full', ms until the oldest departure leaves the window }
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local s = redis.call('HMGET', KEYS[1], 'state', 'until')
if s[1] == 'cooldown' and tonumber(s[2]) > now then return { 'cool', tonumber(s[2]) } end
local w = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - w)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return { 'full', math.max(1, tonumber(oldest[2]) + w - now + 1) }
end
redis.call('ZADD', KEYS[2], now, ARGV[3])
redis.call('PEXPIRE', KEYS[2], w * 2)
local keep = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - keep)
redis.call('ZADD', KEYS[3], now, ARGV[3])
redis.call('PEXPIRE', KEYS[3], keep)
return { 'go' }

-- Puts a bot (its registry state) or a bot × chat into cooldown after a 429, visible to every worker at once.
-- KEYS: [1] the bot's status hash (mode 'bot') or the bot × chat cooldown key (mode 'chat')
-- ARGV: [1] mode 'bot' | 'chat' [2] cooldown ms from now (retry_after + jitter) [3] the bot bucket's rate, msg/s
--   (0: no adaptive rate) [4] backoff factor [5] msg/s regained per second
-- A bot's first 429 of a cooldown also cuts its adaptive rate (fields `ar`, `af`; see gate/aimd.ts): `ar` = max(1,
--   backoff × the rate in force), growing back from `af` = the cooldown's end; 429s inside it only move `af`.
-- Returns: the cooldown's end, epoch ms (Redis TIME): the later of the one in force and the new one — a cooldown is
--   an "until" time, never a flag another request could clear. A disabled or revoked bot keeps its state.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local untilMs = now + tonumber(ARGV[2])
if ARGV[1] == 'chat' then
  untilMs = math.max(untilMs, tonumber(redis.call('GET', KEYS[1]) or '0'))
  redis.call('SET', KEYS[1], untilMs, 'PX', untilMs - now + 1000)
  return untilMs
end
local s = redis.call('HMGET', KEYS[1], 'state', 'until', 'ar', 'af')
local state = s[1] or 'active'
local cooling = state == 'cooldown' and (tonumber(s[2]) or 0) > now
if state == 'cooldown' then untilMs = math.max(untilMs, tonumber(s[2]) or 0) end
if state == 'active' or state == 'cooldown' then
  redis.call('HSET', KEYS[1], 'state', 'cooldown', 'until', untilMs, 'reason', 'retry_after')
  local cap = tonumber(ARGV[3] or '0')
  if cap > 0 then
    if cooling and s[3] then
      redis.call('HSET', KEYS[1], 'af', math.max(tonumber(s[4]), untilMs))
    else
      local rate = cap
      if s[3] then rate = math.min(cap, tonumber(s[3]) + tonumber(ARGV[5]) * math.max(0, now - tonumber(s[4])) / 1000) end
      redis.call('HSET', KEYS[1], 'ar', math.max(1, rate * tonumber(ARGV[4])), 'af', untilMs)
    end
  end
end
return untilMs

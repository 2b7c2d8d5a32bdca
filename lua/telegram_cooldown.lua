-- Puts a bot (its registry state) or a bot × chat into cooldown after a 429, visible to every worker at once.
-- KEYS: [1] the bot's status hash (mode 'bot') or the bot × chat cooldown key (mode 'chat')
-- ARGV: [1] mode 'bot' | 'chat' [2] cooldown ms from now (retry_after + jitter)
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
local s = redis.call('HMGET', KEYS[1], 'state', 'until')
local state = s[1] or 'active'
if state == 'cooldown' then untilMs = math.max(untilMs, tonumber(s[2]) or 0) end
if state == 'active' or state == 'cooldown' then
  redis.call('HSET', KEYS[1], 'state', 'cooldown', 'until', untilMs, 'reason', 'retry_after')
end
return untilMs

-- Records risk observations of subjects (a batch, off the hot path): signals raise a record's score; a payload
-- hash seen again within its window is a repeated_payload; a subject in more distinct chats than allowed within
-- the window is a chat_spread. Same arithmetic as src/locks/rate-limit/core/risk-math.ts (addPoints).
-- KEYS: per observation, in ARGV order: its risk record (hash: s score TAT µs, f first seen µs, t last refresh µs,
--   r last signal µs, n:<signal> count, l:<signal> last seen µs); then for 'p' its payload marker key, for 'c' its chat set (zset).
--   All under the rate-limit hash tag.
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME) [2] clock 'r' (Redis TIME) | 'a' (app)
--   [3] point decay µs [4] max score [5] record TTL ms [6] payload window ms [7] chat limit [8] chat window ms
--   [9] points of a repeated_payload [10] points of a chat_spread [11] quiet TTL ms (a record younger than one
--   reputation period lives this long, an older one [5]: lib/risk.lua risk_ttl) [12] reputation period µs
--   then per observation: kind 's' (signal name, count, points, times: the same signal observed `times` times
--   in the batch, applied one after the other as separate observations would be) | 'p' (nothing more) |
--   'c' (chat member).
-- Returns: the number of signals raised (a signal observed `times` times counts `times`).
-- Includes: lib/clock.lua
local unit, maxS, ttl, quiet, period = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[11], tonumber(ARGV[12])
local fmt = string.format
local nows = fmt('%d', now)

-- `times` observations of one signal: each adds its points in turn (the same float operations as `times`
-- separate calls; writing the score as %.17g and reading it back is exact), one count of count × times.
local function raise(rk, name, count, points, times)
  local h = redis.call('HMGET', rk, 's', 'f')
  local s, f = tonumber(h[1]), tonumber(h[2])
  for _ = 1, times do
    local base = now
    if s and s > now then base = s end
    s = math.min(base + points * unit, now + maxS * unit)
  end
  redis.call('HSET', rk, 's', fmt('%.17g', s), 'r', nows, 'l:' .. name, nows)
  redis.call('HINCRBY', rk, 'n:' .. name, count * times)
  if redis.call('HSETNX', rk, 'f', nows) == 1 then redis.call('HSET', rk, 't', nows) end
  if f and now - f >= period then redis.call('PEXPIRE', rk, ttl) else redis.call('PEXPIRE', rk, quiet) end
end

local raised, k, a = 0, 1, 13
while a <= #ARGV do
  local kind, rk = ARGV[a], KEYS[k]
  if kind == 's' then
    local times = tonumber(ARGV[a + 4])
    raise(rk, ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), times)
    raised = raised + times
    k, a = k + 1, a + 5
  elseif kind == 'p' then
    if not redis.call('SET', KEYS[k + 1], '1', 'NX', 'PX', ARGV[6]) then
      raise(rk, 'repeated_payload', 1, tonumber(ARGV[9]), 1)
      raised = raised + 1
    end
    k, a = k + 2, a + 1
  else
    local set = KEYS[k + 1]
    redis.call('ZADD', set, now, ARGV[a + 1])
    redis.call('ZREMRANGEBYSCORE', set, '-inf', now - tonumber(ARGV[8]) * 1000)
    redis.call('PEXPIRE', set, ARGV[8])
    if redis.call('ZCARD', set) > tonumber(ARGV[7]) then
      raise(rk, 'chat_spread', 1, tonumber(ARGV[10]), 1)
      raised = raised + 1
    end
    k, a = k + 2, a + 2
  end
end
return raised

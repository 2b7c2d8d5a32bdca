-- Heartbeat of one app instance for the rate limiter: registers it as live, drops instances that stopped
-- beating, and creates (once, SET NX) or reads the key-hashing secret shared by every instance.
-- Also writes what rides on the heartbeat (an instance's periodic or deferred writes, one call in all): hash
-- fields (unchanged admin counters), the shared load level (lib/load_level.lua, read by the load monitor so a
-- slow instance pays no call of its own for it) and blocks of risk observations (lib/risk_observe.lua).
-- KEYS: [1] sorted set of live instances  [2] shared key-hashing secret  [3..] rider hashes, then the load
--   level's KEYS (as lua/ratelimit_load.lua takes them), then the keys of each observation block in order
--   (all under the same hash tag)
-- ARGV: [1] instance id [2] liveness window ms (an instance is live while its last beat is younger)
--   [3] candidate secret (used only when none exists yet; '' = do not manage a secret) [4] secret TTL ms
--   [5] app clock, epoch ms (used where Redis refuses TIME) [6] number of rider hashes h
--   [7..6+3h] for each rider hash KEYS[2 + i]: field, value, TTL ms (three ARGV each)
--   then the load level: its number of KEYS l (0 = not read), and when l > 0, 6 + 3(l - 1) ARGV as
--   lua/ratelimit_load.lua takes them (app clock µs, clock 'r' | 'a', soft, hard, hold, pin, per bucket three)
--   then per observation block: its number of KEYS, its number of ARGV n, then n ARGV as
--   lua/ratelimit_risk_observe.lua takes them (app clock µs, clock 'r' | 'a', parameters, observations)
-- Returns: { live instance count, secret or false, the load level as lua/ratelimit_load.lua returns it or false,
--   then per observation block the signals it raised }
-- Includes: lib/now.lua lib/kinds.lua lib/kind_*.lua lib/load_level.lua lib/risk_observe.lua
local ok, t = pcall(redis.call, 'TIME')
local ms = tonumber(ARGV[5])
if ok then ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local window = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], ms, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - window)
redis.call('PEXPIRE', KEYS[1], window * 2)
local count = redis.call('ZCARD', KEYS[1])
local secret = false
if ARGV[3] ~= '' then
  redis.call('SET', KEYS[2], ARGV[3], 'NX')
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
  secret = redis.call('GET', KEYS[2])
end
local h = tonumber(ARGV[6] or '0')
for i = 1, h do
  local a = 7 + (i - 1) * 3
  redis.call('HSET', KEYS[2 + i], ARGV[a], ARGV[a + 1])
  redis.call('PEXPIRE', KEYS[2 + i], tonumber(ARGV[a + 2]))
end
local out = { count, secret, false }
local k, a = 3 + h, 7 + 3 * h
local l = tonumber(ARGV[a] or '0')
if l > 0 then
  -- The level's clock, epoch µs: Redis TIME when it asks for it ('r') and TIME answered, else its app clock.
  now = tonumber(ARGV[a + 1])
  if ARGV[a + 2] == 'r' and ok then now = t[1] * 1000000 + t[2] end
  out[3] = load_level(k, k + l - 1, a + 3)
  k, a = k + l, a + 6 + 3 * (l - 1) + 1
elseif ARGV[a] then
  a = a + 1
end
while a <= #ARGV do
  local nk, na = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local c = a + 2
  -- The block's clock, epoch µs: Redis TIME when it asks for it ('r') and TIME answered, else its app clock.
  local us = tonumber(ARGV[c])
  if ARGV[c + 1] == 'r' and ok then us = t[1] * 1000000 + t[2] end
  out[#out + 1] = risk_observe(us, k, c + 2, c + na - 1)
  k, a = k + nk, c + na
end
return out

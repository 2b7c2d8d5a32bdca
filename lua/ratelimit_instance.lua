-- Heartbeat of one app instance for the rate limiter: registers it as live, drops instances that stopped
-- beating, and creates (once, SET NX) or reads the key-hashing secret shared by every instance.
-- Also writes the hash fields that ride on the heartbeat (an idle instance's periodic writes, one call in all).
-- KEYS: [1] sorted set of live instances  [2] shared key-hashing secret  [3..] rider hashes (same hash tag)
-- ARGV: [1] instance id [2] liveness window ms (an instance is live while its last beat is younger)
--   [3] candidate secret (used only when none exists yet; '' = do not manage a secret) [4] secret TTL ms
--   [5] app clock, epoch ms (used where Redis refuses TIME)
--   [6..] for each rider hash KEYS[2 + i]: field, value, TTL ms (three ARGV each)
-- Returns: { live instance count, secret or false }
local ok, t = pcall(redis.call, 'TIME')
local now = tonumber(ARGV[5])
if ok then now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local window = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('PEXPIRE', KEYS[1], window * 2)
local count = redis.call('ZCARD', KEYS[1])
local secret = false
if ARGV[3] ~= '' then
  redis.call('SET', KEYS[2], ARGV[3], 'NX')
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
  secret = redis.call('GET', KEYS[2])
end
for i = 3, #KEYS do
  local a = 6 + (i - 3) * 3
  redis.call('HSET', KEYS[i], ARGV[a], ARGV[a + 1])
  redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[a + 2]))
end
return { count, secret }

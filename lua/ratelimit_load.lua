-- Computes the service-wide load level from the fill of the policies' global buckets, shared by every instance:
-- a raised level is kept in one key for the hold time, so every instance reads the same level (no flapping).
-- Same arithmetic as src/locks/rate-limit/store/load/memory-load.store.ts.
-- KEYS: [1] the level key (string: 1 soft, 2 hard; PX hold) [2..] the global bucket keys (same hash tag)
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME) [2] clock 'r' (Redis TIME) | 'a' (app)
--   [3] soft fill [4] hard fill [5] hold ms (0 = no hold) [6] pinned level 0|1|2, or -1 (computed)
--   then per global bucket (KEYS order from 2): kind 'g' | 't', capacity (tokens), interval µs per token
-- Returns: { level 0|1|2, fill as a decimal string, index of the fullest bucket (0-based; -1 when all empty),
--   reason 'pressure' | 'held' | 'pinned' }
local now
if ARGV[2] == 'r' then
  local ok, t = pcall(redis.call, 'TIME')
  if ok then now = t[1] * 1000000 + t[2] else now = tonumber(ARGV[1]) end
else
  now = tonumber(ARGV[1])
end
local max, min = math.max, math.min
local fill, src = 0, -1
for i = 2, #KEYS do
  local b = 7 + (i - 2) * 3
  local cap, T = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2])
  local u = 0
  if ARGV[b] == 'g' then
    local v = tonumber(redis.call('GET', KEYS[i]))
    if v then u = max(0, v - now) / (cap * T) end
  else
    local h = redis.call('HMGET', KEYS[i], 't', 'ts')
    if h[1] then u = 1 - min(cap, tonumber(h[1]) + max(0, now - tonumber(h[2])) / T) / cap end
  end
  if u > fill then fill, src = u, i - 2 end
end
local fs = string.format('%.6f', fill)
local pin = tonumber(ARGV[6])
if pin >= 0 then return { pin, fs, src, 'pinned' } end
local raw = 0
if fill >= tonumber(ARGV[4]) then raw = 2 elseif fill >= tonumber(ARGV[3]) then raw = 1 end
local held = tonumber(redis.call('GET', KEYS[1])) or 0
local hold = tonumber(ARGV[5])
if raw > 0 and raw >= held and hold > 0 then redis.call('SET', KEYS[1], raw, 'PX', hold) end
if held > raw then return { held, fs, src, 'held' } end
return { raw, fs, src, 'pressure' }

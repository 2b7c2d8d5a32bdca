-- Computes the service-wide load level from the fill of the policies' global buckets, shared by every instance:
-- a raised level is kept in one key for the hold time, so every instance reads the same level (no flapping).
-- Same arithmetic as src/locks/rate-limit/store/load/memory-load.store.ts.
-- KEYS: [1] the level key (string: 1 soft, 2 hard; PX hold) [2..] the global bucket keys (same hash tag)
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME) [2] clock 'r' (Redis TIME) | 'a' (app)
--   [3] soft fill [4] hard fill [5] hold ms (0 = no hold) [6] pinned level 0|1|2, or -1 (computed)
--   then per global bucket (KEYS order from 2): kind code (lib/kind_*.lua), capacity (tokens), interval µs per token
-- Returns: { level 0|1|2, fill as a decimal string, index of the fullest bucket (0-based; -1 when all empty),
--   reason 'pressure' | 'held' | 'pinned' }
-- Includes: lib/clock.lua lib/kinds.lua lib/kind_*.lua
local fill, src = 0, -1
for i = 2, #KEYS do
  local b = 7 + (i - 2) * 3
  local kd = KINDS[ARGV[b]]
  local v, x
  if kd.read then
    v, x = kd.read(KEYS[i])
  elseif kd.fields then
    local h = redis.call('HMGET', KEYS[i], unpack(kd.fields))
    v, x = tonumber(h[1]), tonumber(h[2])
  else
    v = tonumber(redis.call('GET', KEYS[i]))
  end
  local u = kd.used(v, x, tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]))
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

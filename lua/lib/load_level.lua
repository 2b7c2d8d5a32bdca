-- Defines load_level(k, last, a): the service-wide load level from the fill of the policies' global buckets
-- (lua/ratelimit_load.lua's contract, also carried by the instance heartbeat); needs `now` (epoch µs) set.
-- KEYS[k] the level key (string: 1 soft, 2 hard; PX hold), KEYS[k+1..last] the global buckets;
-- ARGV[a..a+3] soft fill, hard fill, hold ms (0 = no hold), pinned level 0|1|2 or -1 (computed), then per
-- bucket: kind code, capacity (tokens), interval µs per token. Returns { level, fill '%.6f', fullest bucket
-- index (0-based; -1 when all empty), reason 'pressure' | 'held' | 'pinned' }.
local function load_level(k, last, a)
  local fill, src = 0, -1
  for i = k + 1, last do
    local b = a + 4 + (i - k - 1) * 3
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
    if u > fill then fill, src = u, i - k - 1 end
  end
  local fs = string.format('%.6f', fill)
  local pin = tonumber(ARGV[a + 3])
  if pin >= 0 then return { pin, fs, src, 'pinned' } end
  local raw = 0
  if fill >= tonumber(ARGV[a + 1]) then raw = 2 elseif fill >= tonumber(ARGV[a]) then raw = 1 end
  local held = tonumber(redis.call('GET', KEYS[k])) or 0
  local hold = tonumber(ARGV[a + 2])
  if raw > 0 and raw >= held and hold > 0 then redis.call('SET', KEYS[k], raw, 'PX', hold) end
  if held > raw then return { held, fs, src, 'held' } end
  return { raw, fs, src, 'pressure' }
end

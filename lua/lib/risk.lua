-- Defines the risk score arithmetic of src/locks/rate-limit/core/risk-math.ts (same operations, same order) for
-- a parameter block at ARGV[c..]: point decay µs, new-subject window µs, new-subject weight, reputation period µs,
-- points per period, reputation max, tier bonus, record TTL ms, touch µs, number of bands nb, then nb pairs
-- (below, multiplier), the last band taking every higher score. Needs `now` (lib/clock.lua).
-- risk_score(s, f, c): a record's score from its score TAT s and first-seen time f (nil when absent)
local function risk_score(s, f, c)
  local sc = 0
  if s then sc = math.max(0, s - now) / tonumber(ARGV[c]) end
  if not f or now - f < tonumber(ARGV[c + 1]) then sc = sc + tonumber(ARGV[c + 2]) end
  if f then sc = sc - math.min(tonumber(ARGV[c + 5]), math.floor((now - f) / tonumber(ARGV[c + 3])) * tonumber(ARGV[c + 4])) end
  return sc
end
-- risk_touch(key, f, t, c): creates the record at first sight, refreshes its TTL at most every touch µs;
-- returns its first-seen and last-refresh times after.
local function risk_touch(key, f, t, c)
  if not f then
    redis.call('HSET', key, 'f', string.format('%d', now), 't', string.format('%d', now))
    redis.call('PEXPIRE', key, ARGV[c + 7])
    return now, now
  elseif now - (t or 0) >= tonumber(ARGV[c + 8]) then
    redis.call('HSET', key, 't', string.format('%d', now))
    redis.call('PEXPIRE', key, ARGV[c + 7])
    return f, now
  end
  return f, t
end
-- risk_band(worst, c): the multiplier of the band that the worst score less the tier bonus falls in
local function risk_band(worst, c)
  worst = worst - tonumber(ARGV[c + 6])
  local nb = tonumber(ARGV[c + 9])
  for b = 1, nb do
    if b == nb or worst < tonumber(ARGV[c + 8 + b * 2]) then return tonumber(ARGV[c + 9 + b * 2]) end
  end
end

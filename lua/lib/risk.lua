-- Defines the risk score arithmetic of src/locks/rate-limit/core/risk-math.ts (same operations, same order) for
-- a parameter block at ARGV[c..]: point decay µs, new-subject window µs, new-subject weight, reputation period µs,
-- points per period, reputation max, tier bonus, record TTL ms, touch µs, address window µs, number of bands nb,
-- then nb pairs (below, multiplier), the last band taking every higher score, then the quiet TTL ms (of a record
-- younger than one reputation period). Needs `now` (lib/clock.lua).
local r_num, r_max, r_min, r_floor, r_fmt = tonumber, math.max, math.min, math.floor, string.format
-- The parameter block at ARGV[c..] read once per script call: decay, new window, new weight, period, points, max
local RISK_P = {}
local function risk_params(c)
  local p = RISK_P[c]
  if not p then
    p = { r_num(ARGV[c]), r_num(ARGV[c + 1]), r_num(ARGV[c + 2]), r_num(ARGV[c + 3]), r_num(ARGV[c + 4]),
      r_num(ARGV[c + 5]) }
    RISK_P[c] = p
  end
  return p
end
-- risk_score(s, f, c): a record's score from its score TAT s and first-seen time f (nil when absent)
local function risk_score(s, f, c)
  local p = risk_params(c)
  local sc = 0
  if s then sc = r_max(0, s - now) / p[1] end
  if not f or now - f < p[2] then sc = sc + p[3] end
  if f then sc = sc - r_min(p[6], r_floor((now - f) / p[4]) * p[5]) end
  return sc
end
-- risk_ttl(f, c): the TTL ms of a record first seen at f (nil: new), risk-math.ts recordTtlMs: the record TTL once
-- it is one reputation period old, else the quiet TTL (a made-up subject seen once goes in hours, not days)
local function risk_ttl(f, c)
  if f and now - f >= r_num(ARGV[c + 3]) then return ARGV[c + 7] end
  return ARGV[c + 11 + 2 * r_num(ARGV[c + 10])]
end
-- risk_touch(key, f, t, c): creates the record at first sight, refreshes its TTL at most every touch µs;
-- returns its first-seen and last-refresh times after.
local function risk_touch(key, f, t, c)
  if not f then
    redis.call('HSET', key, 'f', r_fmt('%d', now), 't', r_fmt('%d', now))
    redis.call('PEXPIRE', key, risk_ttl(nil, c))
    return now, now
  elseif now - (t or 0) >= r_num(ARGV[c + 8]) then
    redis.call('HSET', key, 't', r_fmt('%d', now))
    redis.call('PEXPIRE', key, risk_ttl(f, c))
    return f, now
  end
  return f, t
end
-- risk_index(score, c): the 1-based band that a score less the tier bonus falls in
local function risk_index(score, c)
  score = score - r_num(ARGV[c + 6])
  local nb = r_num(ARGV[c + 10])
  for b = 1, nb do
    if b == nb or score < r_num(ARGV[c + 9 + b * 2]) then return b end
  end
end
-- risk_recent(r, c): an unproven record whose last signal r (nil: none) is within the address window
local function risk_recent(r, c)
  return r ~= nil and now - r < r_num(ARGV[c + 9])
end
-- risk_band(worst, address, c): the multiplier of a request (risk-math.ts requestRisk): the band of `worst` (its
-- verified subjects' worst score, or with none verified every record's), lowered by one band at most by `address`
-- (the worst recently signalled unproven record's score; nil: none)
local function risk_band(worst, address, c)
  local b = risk_index(worst, c)
  if address then b = r_max(b, r_min(risk_index(address, c), b + 1)) end
  return r_num(ARGV[c + 10 + b * 2])
end

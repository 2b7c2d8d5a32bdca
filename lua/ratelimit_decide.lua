-- Decides every rate-limit bucket of one request at once: refill, check all, charge all or none.
-- Mirror of src/locks/rate-limit/bucket-math.ts (same arithmetic, same order). Times in microseconds.
-- KEYS: [1..n] bucket keys, in rule order (all in one hash slot)
--   [n+1..] penalty-strike keys of the buckets whose flags have bit 8, in bucket order
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME)
--   [2] clock 'r' (Redis TIME) | 'a' (app) [3] degrade-at fraction (0 = off) [4] degrade factor
--   [5] degraded hint '1'|'0' [6] n = number of buckets
--   then per bucket i, at 6 + 5(i-1): kind 'g' GCRA | 't' token bucket | 'f' fixed window,
--   capacity (tokens), interval µs per token (window µs for 'f'), cost, flags (1 shadow, 2 soft, 4 degradable, 8 penalty)
--   then per penalty j, at 6 + 5n + 4(j-1): threshold, factor, decay µs, floor
-- Returns: { allowed 1|0, blocker (0-based bucket index, -1), degraded 1|0, now ms,
--   then per bucket: allowed 1|0, remaining, retry-after ms, reset ms, limit, charged (µs for 'g', tokens otherwise) }
-- Every key written gets a TTL (full refill time + 1 s); stored times never move backwards; a refusal writes
-- nothing but penalty strikes.
local now
if ARGV[2] == 'r' then
  local ok, t = pcall(redis.call, 'TIME')
  if ok then now = tonumber(t[1]) * 1000000 + tonumber(t[2]) else now = tonumber(ARGV[1]) end
else
  now = tonumber(ARGV[1])
end
local EPS = 1e-9
local MARGIN = 1000
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local n = tonumber(ARGV[6])
local degradeAt, dfactor = tonumber(ARGV[3]), tonumber(ARGV[4])
local degraded = ARGV[5] == '1'
local kind, cap, T, cost, shadow, dgr, val, strikes, ptat, pen, pkey = {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}
local pj = 0
for i = 1, n do
  local b = 6 + (i - 1) * 5
  local k = ARGV[b + 1]
  kind[i] = k
  cap[i] = tonumber(ARGV[b + 2])
  T[i] = tonumber(ARGV[b + 3])
  cost[i] = tonumber(ARGV[b + 4])
  local fl = tonumber(ARGV[b + 5])
  shadow[i] = bit.band(fl, 1) ~= 0
  dgr[i] = bit.band(fl, 4) ~= 0
  if k == 'g' then
    val[i] = tonumber(redis.call('GET', KEYS[i]))
  elseif k == 't' then
    local h = redis.call('HMGET', KEYS[i], 't', 'ts')
    if h[1] then val[i] = { tonumber(h[1]), tonumber(h[2]) } end
  else
    local h = redis.call('HMGET', KEYS[i], 'c', 'e')
    if h[1] and tonumber(h[2]) > now then val[i] = { tonumber(h[1]), tonumber(h[2]) } end
  end
  strikes[i] = 0
  if bit.band(fl, 8) ~= 0 then
    pj = pj + 1
    local pb = 6 + n * 5 + (pj - 1) * 4
    local p = { tonumber(ARGV[pb + 1]), tonumber(ARGV[pb + 2]), tonumber(ARGV[pb + 3]), tonumber(ARGV[pb + 4]) }
    pen[i] = p
    pkey[i] = KEYS[n + pj]
    local pt = tonumber(redis.call('GET', pkey[i]))
    ptat[i] = pt
    if pt and pt > now then strikes[i] = ceil((pt - now) / p[3]) end
  end
  if degradeAt > 0 and bit.band(fl, 2) ~= 0 and not degraded then
    local v, u = val[i], 0
    if v then
      if k == 'g' then u = max(0, v - now) / (cap[i] * T[i])
      elseif k == 't' then u = 1 - min(cap[i], v[1] + max(0, now - v[2]) / T[i]) / cap[i]
      else u = v[1] / cap[i] end
    end
    if u >= degradeAt then degraded = true end
  end
end
local out = { 1, -1, 0, floor(now / 1000) }
local allowed, blocker, worst = true, -1, -1
local writes = {}
for i = 1, n do
  local m = 1
  local p = pen[i]
  if p and strikes[i] >= p[1] then m = max(p[4], p[2] ^ (strikes[i] - p[1] + 1)) end
  if degraded and dgr[i] then m = m * dfactor end
  local c = cap[i] * m
  local k, v, q = kind[i], val[i], cost[i]
  local t = T[i]
  if k ~= 'f' then t = t / m end
  local ok, rem, retry, reset, charged
  if k == 'g' then
    local tau = c * t
    local tat = max(v or now, now)
    local nxt = tat + q * t
    if nxt - now <= tau + EPS then
      ok, rem, retry, reset, charged = 1, floor((tau - (nxt - now)) / t + EPS), 0, ceil((nxt - now) / 1000), floor(q * t)
      writes[#writes + 1] = { 'g', KEYS[i], nxt, ceil((nxt - now) / 1000) + MARGIN }
    else
      local r
      if q * t > tau + EPS then r = max(tat - now, 1000000) else r = nxt - tau - now end
      ok, rem, retry, reset, charged = 0, max(0, floor((tau - (tat - now)) / t + EPS)), ceil(r / 1000), ceil((tat - now) / 1000), 0
    end
  elseif k == 't' then
    local ts, tokens = now, c
    if v then
      ts = max(v[2], now)
      tokens = min(c, v[1] + max(0, now - v[2]) / t)
    end
    if tokens + EPS >= q then
      local left = tokens - q
      local rs = (c - left) * t
      ok, rem, retry, reset, charged = 1, floor(left + EPS), 0, ceil(rs / 1000), q
      writes[#writes + 1] = { 't', KEYS[i], left, ceil(rs / 1000) + MARGIN, ts }
    else
      local r
      if q > c + EPS then r = max((c - tokens) * t, 1000000) else r = (q - tokens) * t end
      ok, rem, retry, reset, charged = 0, floor(tokens + EPS), ceil(r / 1000), ceil(((c - tokens) * t) / 1000), 0
    end
  else
    local count, exp = 0, now + t
    if v then count, exp = v[1], v[2] end
    local left = max(0, ceil((exp - now) / 1000))
    if count + q <= c + EPS then
      ok, rem, retry, reset, charged = 1, floor(c - count - q + EPS), 0, left, q
      writes[#writes + 1] = { 'f', KEYS[i], count + q, left + MARGIN, exp }
    else
      ok, rem, retry, reset, charged = 0, max(0, floor(c - count + EPS)), max(1, left), left, 0
    end
  end
  if ok == 0 and not shadow[i] then
    allowed = false
    if retry > worst then worst, blocker = retry, i - 1 end
  end
  local o = #out
  out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6] = ok, rem, retry, reset, floor(c + EPS), charged
end
if allowed then
  for _, w in ipairs(writes) do
    if w[1] == 'g' then
      redis.call('SET', w[2], string.format('%.17g', w[3]), 'PX', w[4])
    elseif w[1] == 't' then
      redis.call('HSET', w[2], 't', string.format('%.17g', w[3]), 'ts', string.format('%.17g', w[5]))
      redis.call('PEXPIRE', w[2], w[4])
    else
      redis.call('HSET', w[2], 'c', w[3], 'e', string.format('%.17g', w[5]))
      redis.call('PEXPIRE', w[2], w[4])
    end
  end
else
  out[1], out[2] = 0, blocker
  for i = 1, n do
    out[4 + (i - 1) * 6 + 6] = 0
    if pen[i] and not shadow[i] and out[4 + (i - 1) * 6 + 1] == 0 then
      local pt = max(ptat[i] or now, now) + pen[i][3]
      redis.call('SET', pkey[i], string.format('%.17g', pt), 'PX', ceil((pt - now) / 1000) + MARGIN)
    end
  end
end
if degraded then out[3] = 1 end
return out

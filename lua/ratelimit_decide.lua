-- Decides every rate-limit bucket of one request at once: refill, check all, charge all or none.
-- Mirror of src/locks/rate-limit/bucket-math.ts (same arithmetic, same order). Times in microseconds.
-- KEYS: [1..n] bucket keys, in rule order (all in one hash slot)
--   [n+1..] penalty-strike keys of the buckets whose flags have bit 8, in bucket order
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME)
--   [2] clock 'r' (Redis TIME) | 'a' (app) [3] degrade-at fraction (0 = off) [4] degrade factor
--   [5] degraded hint '1'|'0' [6] n = number of buckets
--   then per bucket i, at 6 + 6(i-1): kind 'g' GCRA | 't' token bucket | 'f' fixed window,
--   capacity (tokens), interval µs per token (window µs for 'f'), cost, flags (1 shadow, 2 soft, 4 degradable, 8 penalty),
--   TTL ms of the key (full refill time + 1 s: capacity × interval, which multipliers do not change)
--   then per penalty j, at 6 + 6n + 6(j-1): threshold, factor, decay µs, floor, max strikes,
--   pending strikes (refusals the app's deny cache answered since; added now, capped like all strikes)
-- Returns: { allowed 1|0, blocker (0-based bucket index, -1), degraded 1|0, now ms,
--   then per bucket: allowed 1|0, remaining, retry-after ms (refused: until it fits; allowed: until a next request
--   of the same cost fits, floored, 0 = now), reset ms, limit, charged (µs for 'g', tokens otherwise) }
-- Every key written gets a TTL (full refill time + 1 s); stored times never move backwards; a refusal writes
-- nothing but penalty strikes (strike TATs are capped at max strikes × decay from now).
local now
if ARGV[2] == 'r' then
  local ok, t = pcall(redis.call, 'TIME')
  if ok then now = tonumber(t[1]) * 1000000 + tonumber(t[2]) else now = tonumber(ARGV[1]) end
else
  now = tonumber(ARGV[1])
end
local EPS, MARGIN = 1e-9, 1000
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local n = tonumber(ARGV[6])
local degradeAt, dfactor = 0, 1
if ARGV[3] ~= '0' then degradeAt, dfactor = tonumber(ARGV[3]), tonumber(ARGV[4]) end
local degraded = ARGV[5] == '1'
-- Flat per-bucket state (fewer tables = less Lua overhead): V value, X second value (ts / window end),
-- S strikes, P penalty TAT, F flags, D penalty TAT changed by pending strikes; penalty parameters stay in ARGV.
local V, X, S, P, F, PB, D = {}, {}, {}, {}, {}, {}, {}
local gk, gi = {}, {}
for i = 1, n do
  if ARGV[1 + i * 6] == 'g' then
    gk[#gk + 1] = KEYS[i]
    gi[#gi + 1] = i
  end
end
if #gk > 0 then
  local vals = redis.call('MGET', unpack(gk))
  for j = 1, #gi do V[gi[j]] = tonumber(vals[j]) end
end
local pj = 0
for i = 1, n do
  local b = 1 + i * 6
  local k, fl = ARGV[b], ARGV[b + 4]
  if fl == '0' then fl = 0 else fl = tonumber(fl) end
  F[i] = fl
  if k == 't' then
    local h = redis.call('HMGET', KEYS[i], 't', 'ts')
    if h[1] then V[i], X[i] = tonumber(h[1]), tonumber(h[2]) end
  elseif k == 'f' then
    local h = redis.call('HMGET', KEYS[i], 'c', 'e')
    if h[1] and tonumber(h[2]) > now then V[i], X[i] = tonumber(h[1]), tonumber(h[2]) end
  end
  S[i] = 0
  if fl >= 8 then
    pj = pj + 1
    local pb = 6 + n * 6 + (pj - 1) * 6
    PB[i] = pb
    local pt = tonumber(redis.call('GET', KEYS[n + pj]))
    local pending = tonumber(ARGV[pb + 6])
    if pending > 0 then
      local d = tonumber(ARGV[pb + 3])
      pt = min(max(pt or now, now) + pending * d, now + tonumber(ARGV[pb + 5]) * d)
      D[i] = true
    end
    P[i] = pt
    if pt and pt > now then S[i] = ceil((pt - now) / tonumber(ARGV[pb + 3])) end
  end
  if degradeAt > 0 and not degraded and fl % 4 >= 2 and V[i] then
    local cap, T, v, u = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), V[i], 0
    if k == 'g' then u = max(0, v - now) / (cap * T)
    elseif k == 't' then u = 1 - min(cap, v + max(0, now - X[i]) / T) / cap
    else u = v / cap end
    if u >= degradeAt then degraded = true end
  end
end
local out = { 1, -1, 0, floor(now / 1000) }
local allowed, blocker, worst = true, -1, -1
-- W: value to write per allowed bucket (TAT, tokens or count), TS: ts / window end
local W, TS = {}, {}
for i = 1, n do
  local b = 1 + i * 6
  local k, q, fl = ARGV[b], tonumber(ARGV[b + 3]), F[i]
  local m = 1
  local pb = PB[i]
  if pb then
    local th = tonumber(ARGV[pb + 1])
    if S[i] >= th then m = max(tonumber(ARGV[pb + 4]), tonumber(ARGV[pb + 2]) ^ (S[i] - th + 1)) end
  end
  if degraded and fl % 8 >= 4 then m = m * dfactor end
  local c = tonumber(ARGV[b + 1]) * m
  local t = tonumber(ARGV[b + 2])
  if k ~= 'f' then t = t / m end
  local v = V[i]
  local ok, rem, retry, reset, charged
  if k == 'g' then
    local tau = c * t
    local tat = v
    if not tat or tat < now then tat = now end
    local nxt = tat + q * t
    local d = nxt - now
    if d <= tau + EPS then
      -- hot path: floor / ceil inlined (x - x % 1), no C calls
      local r = (tau - d) / t + EPS
      local rs = d / 1000
      local rf = rs - rs % 1
      if rf < rs then rf = rf + 1 end
      local ch = q * t
      -- retry when allowed: whole ms until a next request of this cost fits (floored: never later than Redis)
      local nx = (d + ch - tau) / 1000
      if nx > 0 then nx = nx - nx % 1 else nx = 0 end
      ok, rem, retry, reset, charged = 1, r - r % 1, nx, rf, ch - ch % 1
      W[i] = nxt
    else
      local r
      if q * t > tau + EPS then r = max(tat - now, 1000000) else r = nxt - tau - now end
      ok, rem, retry, reset, charged = 0, max(0, floor((tau - (tat - now)) / t + EPS)), ceil(r / 1000), ceil((tat - now) / 1000), 0
    end
  elseif k == 't' then
    local ts, tokens = now, c
    if v then
      ts = max(X[i], now)
      tokens = min(c, v + max(0, now - X[i]) / t)
    end
    if tokens + EPS >= q then
      local left = tokens - q
      local rs = ceil((c - left) * t / 1000)
      ok, rem, retry, reset, charged = 1, floor(left + EPS), floor(max(0, q - left) * t / 1000), rs, q
      W[i], TS[i] = left, ts
    else
      local r
      if q > c + EPS then r = max((c - tokens) * t, 1000000) else r = (q - tokens) * t end
      ok, rem, retry, reset, charged = 0, floor(tokens + EPS), ceil(r / 1000), ceil(((c - tokens) * t) / 1000), 0
    end
  else
    local count, exp = 0, now + t
    if v then count, exp = v, X[i] end
    local left = max(0, ceil((exp - now) / 1000))
    if count + q <= c + EPS then
      local nx = 0
      if count + 2 * q > c + EPS then nx = left end
      ok, rem, retry, reset, charged = 1, floor(c - count - q + EPS), nx, left, q
      W[i], TS[i] = count + q, exp
    else
      ok, rem, retry, reset, charged = 0, max(0, floor(c - count + EPS)), max(1, left), left, 0
    end
  end
  if ok == 0 and fl % 2 == 0 then
    allowed = false
    if retry > worst then worst, blocker = retry, i - 1 end
  end
  local o = i * 6 - 2
  local lim = c + EPS
  out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6] = ok, rem, retry, reset, lim - lim % 1, charged
end
if allowed then
  -- Numbers passed to redis.call are written with %.17g: exact round trip of the doubles.
  for i = 1, n do
    local w = W[i]
    if w then
      local b = 1 + i * 6
      local k = ARGV[b]
      if k == 'g' then
        redis.call('SET', KEYS[i], w, 'PX', ARGV[b + 5])
      elseif k == 't' then
        redis.call('HSET', KEYS[i], 't', w, 'ts', TS[i])
        redis.call('PEXPIRE', KEYS[i], ARGV[b + 5])
      else
        redis.call('HSET', KEYS[i], 'c', w, 'e', TS[i])
        redis.call('PEXPIRE', KEYS[i], ARGV[b + 5])
      end
    end
  end
else
  out[1], out[2] = 0, blocker
  for i = 1, n do out[i * 6 + 4] = 0 end
end
for i = 1, n do
  local pb = PB[i]
  if pb then
    local struck = not allowed and F[i] % 2 == 0 and out[i * 6 - 1] == 0
    if struck or D[i] then
      local pt = P[i]
      if struck then
        local d = tonumber(ARGV[pb + 3])
        pt = min(max(pt or now, now) + d, now + tonumber(ARGV[pb + 5]) * d)
      end
      redis.call('SET', KEYS[n + (pb - 6 - n * 6) / 6 + 1], pt, 'PX', ceil((pt - now) / 1000) + MARGIN)
    end
  end
end
if degraded then out[3] = 1 end
return out

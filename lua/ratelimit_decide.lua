-- Decides every rate-limit bucket of one request at once: refill, check all, charge all or none.
-- The decision arithmetic is that of src/locks/rate-limit/bucket-math.ts (same operations, same order). The script
-- only decides and writes; it returns the state it read, and the app derives every per-bucket figure (remaining,
-- retry-after, reset, limit, charged, blocker) from that state with bucket-math.ts. Times in microseconds.
-- KEYS: [1..n] bucket keys, in rule order (all in one hash slot)
--   [n+1..] penalty-strike keys of the buckets whose flags have bit 8, in bucket order
--   then ('x' only) the nr risk records of the request's scored subjects (hashes s, f, t; core/risk.types.ts)
--   then the claim key when ARGV[#ARGV-1] > 0, then the n told keys (bucket order) when ARGV[#ARGV] = n
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME) [2] clock 'r' (Redis TIME) | 'a' (app)
--   [3] 'g' | 'd' fast path: every bucket GCRA, none with a penalty (one MGET, one PSETEX per charged bucket).
--     'd' only: [4] degrade-at fraction [5] degraded hint '1'|'0'. Then per bucket i, at h + 4(i-1) (h = 3 for 'g',
--     5 for 'd'): tolerance µs (capacity × interval), increment µs (cost × interval), flags (1 shadow, 2 soft,
--     4 degradable), TTL ms of the key (full refill time + 1 s); then, 'd' only, per degradable bucket j, at
--     h + 4n + 2(j-1): tolerance and increment at the degrade factor. All as bucket-math.ts computes them.
--   [3] 'x' any buckets: [4] degrade-at fraction (0 = off) [5] degrade factor [6] degraded hint '1'|'0' [7] n;
--     then per bucket i, at 7 + 6(i-1): kind 'g' GCRA | 't' token bucket | 'f' fixed window,
--     capacity (tokens), interval µs per token (window µs for 'f'), cost, flags (1 shadow, 2 soft, 4 degradable, 8 penalty,
--     16 risk-scaled),
--     TTL ms of the key (full refill time + 1 s: capacity × interval, which multipliers do not change)
--     then per penalty j, at 7 + 6n + 6(j-1): threshold, factor, decay µs, floor, max strikes,
--     pending strikes (refusals the app's deny cache answered since; added now, capped like all strikes)
--   then [R0 = 8 + 6n + 6·penalties] nr (risk records, 0 = none); when nr > 0: point decay µs, new-subject window
--     µs, new-subject weight, reputation period µs, points per period, reputation max, tier bonus, record TTL ms,
--     touch µs, number of bands nb, then nb pairs (below, multiplier): the last band takes every higher score
--   Both paths end with: [#ARGV-1] claim TTL ms (0 = no claim) [#ARGV] told keys (0, or n for onLimit flag)
-- Returns: { 'dup' } when the claim key was taken already (nothing read, decided or charged). Else the state read
--   before the decision, as stored (nil = absent), then 5 integers:
--   { TAT of each GCRA bucket (bucket order), strike TAT of each penalty key (KEYS order),
--     tokens, ts | count, window end of each token bucket | fixed window (bucket order),
--     s, f, t of each risk record ('x' only, KEYS order),
--     now µs, allowed 1|0, degraded 1|0, notify 1|0, blocker (0-based; -1 unless refused with told keys) }
-- Claim: SET NX PX <claim TTL> before the decision, so it is set whatever the decision. Told: on a refusal, the
--   told key of the blocker (the enforced refusing bucket with the longest retry-after, the first on ties, as
--   bucket-math.ts picks it) is SET NX PX max(its retry-after, its window = key TTL − 1 s: capacity ÷ rate, or
--   the fixed window) ms, so a flooding subject is told once per window; notify = it was set now.
-- Every key written gets a TTL (full refill time + 1 s); stored times never move backwards; a refusal writes
-- nothing but penalty strikes (strike TATs are capped at max strikes × decay from now). Values are decimal:
-- integers as %d, others as %.17g (the exact round trip of the doubles; both read back with tonumber).
local now
if ARGV[2] == 'r' then
  local ok, t = pcall(redis.call, 'TIME')
  if ok then now = t[1] * 1000000 + t[2] else now = tonumber(ARGV[1]) end
else
  now = tonumber(ARGV[1])
end
local EPS = 1e-9
local tonumber, fmt = tonumber, string.format
local CT, NT = tonumber(ARGV[#ARGV - 1]), tonumber(ARGV[#ARGV])
local NX = NT + (CT > 0 and 1 or 0)
if CT > 0 and not redis.call('SET', KEYS[#KEYS - NT], '1', 'NX', 'PX', CT) then return { 'dup' } end
-- told(blocker 1-based, retry ms, key TTL ms): the refusal's told key SET NX for max(retry-after, window); 1 when
-- set now. The window is the blocker's key TTL less its 1 s margin (full refill time; the window for 'f').
local function told(bl, ms, ttl)
  if NT == 0 or bl == 0 then return 0 end
  ms = math.max(ms, tonumber(ttl) - 1000, 1)
  return redis.call('SET', KEYS[#KEYS - NT + bl], '1', 'NX', 'PX', ms) and 1 or 0
end

local path = ARGV[3]
if path ~= 'x' then
  local n = #KEYS - NX
  local keys = KEYS
  if NX > 0 then keys = {} for i = 1, n do keys[i] = KEYS[i] end end
  local out = redis.call('MGET', unpack(keys))
  local h, degraded = 3, false
  if path == 'd' then
    h, degraded = 5, ARGV[5] == '1'
    local at = tonumber(ARGV[4])
    if not degraded and at > 0 then
      for i = 1, n do
        local b = h + i * 4 - 3
        local v = out[i]
        if v and ARGV[b + 2] % 4 >= 2 and math.max(0, v - now) / ARGV[b] >= at then degraded = true end
      end
    end
  end
  local W = {}
  local j = h + n * 4
  local bl, worst = 0, -1
  for i = 1, n do
    local b = h + i * 4 - 3
    local tau, inc, fl = ARGV[b], ARGV[b + 1], ARGV[b + 2]
    if h == 5 and fl % 8 >= 4 then
      if degraded then tau, inc = ARGV[j + 1], ARGV[j + 2] end
      j = j + 2
    end
    local tat = out[i]
    if tat then
      tat = tonumber(tat)
      if tat < now then tat = now end
    else
      tat = now
    end
    local nxt = tat + inc
    if nxt - now <= tau + EPS then
      W[i] = nxt
    elseif fl % 2 == 0 then
      -- an enforced bucket refuses: nothing is written
      if NT == 0 then
        out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = now, 0, degraded and 1 or 0, 0, -1
        return out
      end
      local r = nxt - tau - now
      if tonumber(inc) > tau + EPS then r = math.max(tat - now, 1e6) end
      r = math.ceil(r / 1000)
      if r > worst then bl, worst = i, r end
    end
  end
  if bl > 0 then
    out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = now, 0, degraded and 1 or 0, told(bl, worst, ARGV[h + bl * 4]), bl - 1
    return out
  end
  for i = 1, n do
    local w = W[i]
    if w then
      if w % 1 == 0 then w = fmt('%d', w) end
      redis.call('PSETEX', KEYS[i], ARGV[h + i * 4], w)
    end
  end
  out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = now, 1, degraded and 1 or 0, 0, -1
  return out
end

local degradeAt = tonumber(ARGV[4])
local degraded = ARGV[6] == '1'
local n = tonumber(ARGV[7])
local np = 0
for i = 1, n do
  if ARGV[6 + i * 6] % 16 >= 8 then np = np + 1 end
end
local R0 = 8 + n * 6 + np * 6
local nr = tonumber(ARGV[R0])
local ceil, max, min = math.ceil, math.max, math.min
-- Read: one MGET for the GCRA buckets then the penalty keys (its reply starts the output), one HMGET per token
-- bucket / fixed window (appended). V value, X second value (ts / window end).
local mk = {}
for i = 1, n do
  if ARGV[2 + i * 6] == 'g' then mk[#mk + 1] = KEYS[i] end
end
local ng = #mk
for j = 1, np do mk[ng + j] = KEYS[n + j] end
local out = {}
if #mk > 0 then out = redis.call('MGET', unpack(mk)) end
local o, g = #mk, 0
local V, X = {}, {}
for i = 1, n do
  local k = ARGV[2 + i * 6]
  if k == 'g' then
    g = g + 1
    V[i] = tonumber(out[g])
  else
    local h
    if k == 't' then h = redis.call('HMGET', KEYS[i], 't', 'ts') else h = redis.call('HMGET', KEYS[i], 'c', 'e') end
    out[o + 1], out[o + 2] = h[1], h[2]
    o = o + 2
    if h[1] and (k == 't' or tonumber(h[2]) > now) then V[i], X[i] = tonumber(h[1]), tonumber(h[2]) end
  end
end
-- Penalties: S strikes alive, P strike TAT (pending strikes added), PB ARGV base, PJ penalty index, D changed by pending.
local S, P, PB, PJ, D
if np > 0 then
  S, P, PB, PJ, D = {}, {}, {}, {}, {}
  local pj = 0
  for i = 1, n do
    if ARGV[6 + i * 6] % 16 >= 8 then
      pj = pj + 1
      local pb = 7 + n * 6 + (pj - 1) * 6
      PB[i], PJ[i] = pb, pj
      local pt = tonumber(out[ng + pj])
      if tonumber(ARGV[pb + 6]) > 0 then
        local d = tonumber(ARGV[pb + 3])
        pt = min(max(pt or now, now) + tonumber(ARGV[pb + 6]) * d, now + tonumber(ARGV[pb + 5]) * d)
        D[i] = true
      end
      P[i] = pt
      if pt and pt > now then S[i] = ceil((pt - now) / tonumber(ARGV[pb + 3])) end
    end
  end
end
if degradeAt > 0 and not degraded then
  for i = 1, n do
    local b = 2 + i * 6
    local v = V[i]
    if v and ARGV[b + 4] % 4 >= 2 then
      local k, cap, T = ARGV[b], tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2])
      local u
      if k == 'g' then u = max(0, v - now) / (cap * T)
      elseif k == 't' then u = 1 - min(cap, v + max(0, now - X[i]) / T) / cap
      else u = v / cap end
      if u >= degradeAt then degraded = true end
    end
  end
end
-- Risk: the worst subject's score (decayed points + new subject − reputation) less the tier bonus picks the band
-- multiplier RM of the flag-16 buckets (as risk-math.ts). A record is created at first sight, its TTL refreshed
-- at most every touch µs.
local RM = 1
if nr > 0 then
  local unit, newUs, newW = tonumber(ARGV[R0 + 1]), tonumber(ARGV[R0 + 2]), tonumber(ARGV[R0 + 3])
  local repP, repPer, repMax = tonumber(ARGV[R0 + 4]), tonumber(ARGV[R0 + 5]), tonumber(ARGV[R0 + 6])
  local worst
  for j = 1, nr do
    local rk = KEYS[n + np + j]
    local h = redis.call('HMGET', rk, 's', 'f', 't')
    out[o + 1], out[o + 2], out[o + 3] = h[1], h[2], h[3]
    o = o + 3
    local s, f = tonumber(h[1]), tonumber(h[2])
    local sc = 0
    if s then sc = max(0, s - now) / unit end
    if not f or now - f < newUs then sc = sc + newW end
    if f then sc = sc - min(repMax, math.floor((now - f) / repP) * repPer) end
    if not worst or sc > worst then worst = sc end
    if not f then
      redis.call('HSET', rk, 'f', fmt('%d', now), 't', fmt('%d', now))
      redis.call('PEXPIRE', rk, ARGV[R0 + 8])
    elseif now - (tonumber(h[3]) or 0) >= tonumber(ARGV[R0 + 9]) then
      redis.call('HSET', rk, 't', fmt('%d', now))
      redis.call('PEXPIRE', rk, ARGV[R0 + 8])
    end
  end
  worst = worst - tonumber(ARGV[R0 + 7])
  local nb = tonumber(ARGV[R0 + 10])
  for b = 1, nb do
    if b == nb or worst < tonumber(ARGV[R0 + 9 + b * 2]) then
      RM = tonumber(ARGV[R0 + 10 + b * 2])
      break
    end
  end
end
-- Decide. OK: the bucket fits; W: value to write (TAT, tokens or count); TS: ts / window end.
-- BL / WORST: the blocker (1-based) and its retry-after ms, computed only when told keys are given.
local allowed, OK, W, TS = true, {}, {}, {}
local BL, WORST = 0, -1
for i = 1, n do
  local b = 2 + i * 6
  local k, q, fl = ARGV[b], tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4])
  local m = 1
  local pb = PB and PB[i]
  if pb then
    local th = tonumber(ARGV[pb + 1])
    if S[i] and S[i] >= th then
      -- factor^(strikes - threshold + 1) by repeated products: the same doubles as bucket-math.ts
      local f = tonumber(ARGV[pb + 2])
      local p = f
      for _ = 2, S[i] - th + 1 do p = p * f end
      m = max(tonumber(ARGV[pb + 4]), p)
    end
  end
  if degraded and fl % 8 >= 4 then m = m * tonumber(ARGV[5]) end
  if fl % 32 >= 16 then m = m * RM end
  local c = tonumber(ARGV[b + 1]) * m
  local t = tonumber(ARGV[b + 2])
  if k ~= 'f' then t = t / m end
  local v, ok, r = V[i], false, 0
  if k == 'g' then
    local tat = v
    if not tat or tat < now then tat = now end
    local nxt = tat + q * t
    local tau = c * t
    if nxt - now <= tau + EPS then ok, W[i] = true, nxt
    elseif q * t > tau + EPS then r = ceil(max(tat - now, 1e6) / 1000)
    else r = ceil((nxt - tau - now) / 1000) end
  elseif k == 't' then
    local ts, tokens = now, c
    if v then ts, tokens = max(X[i], now), min(c, v + max(0, now - X[i]) / t) end
    if tokens + EPS >= q then ok, W[i], TS[i] = true, tokens - q, ts
    elseif q > c + EPS then r = ceil(max((c - tokens) * t, 1e6) / 1000)
    else r = ceil((q - tokens) * t / 1000) end
  else
    local count, exp = 0, now + t
    if v then count, exp = v, X[i] end
    if count + q <= c + EPS then ok, W[i], TS[i] = true, count + q, exp
    else r = max(1, max(0, ceil((exp - now) / 1000))) end
  end
  OK[i] = ok
  if not ok and fl % 2 == 0 then
    allowed = false
    if r > WORST then BL, WORST = i, r end
  end
end
if allowed then
  for i = 1, n do
    local w = W[i]
    if w then
      local b = 2 + i * 6
      local k = ARGV[b]
      if k == 'g' then
        if w % 1 == 0 then w = fmt('%d', w) end
        redis.call('PSETEX', KEYS[i], ARGV[b + 5], w)
      elseif k == 't' then
        redis.call('HSET', KEYS[i], 't', w, 'ts', TS[i])
        redis.call('PEXPIRE', KEYS[i], ARGV[b + 5])
      else
        redis.call('HSET', KEYS[i], 'c', w, 'e', TS[i])
        redis.call('PEXPIRE', KEYS[i], ARGV[b + 5])
      end
    end
  end
end
for i = 1, np > 0 and n or 0 do
  local pb = PB[i]
  if pb then
    local struck = not allowed and ARGV[6 + i * 6] % 2 == 0 and not OK[i]
    if struck or D[i] then
      local pt = P[i]
      if struck then
        local d = tonumber(ARGV[pb + 3])
        pt = min(max(pt or now, now) + d, now + tonumber(ARGV[pb + 5]) * d)
      end
      redis.call('SET', KEYS[n + PJ[i]], pt, 'PX', ceil((pt - now) / 1000) + 1000)
    end
  end
end
local notify = 0
if not allowed then notify = told(BL, WORST, ARGV[2 + BL * 6 + 5]) end
out[o + 1], out[o + 2], out[o + 3] = now, allowed and 1 or 0, degraded and 1 or 0
out[o + 4], out[o + 5] = notify, (allowed or NT == 0) and -1 or BL - 1
return out

-- Decides every rate-limit bucket of one request at once: refill, check all, charge all or none.
-- The decision arithmetic is that of src/locks/rate-limit/core/bucket-math.ts (same operations, same order). The
-- script only decides and writes; it returns the state it read, and the app derives every per-bucket figure
-- (remaining, retry-after, reset, limit, charged, blocker) from that state with bucket-math.ts. Times in µs.
-- KEYS: [1..n] bucket keys, in rule order (all in one hash slot)
--   [n+1..] penalty-strike keys of the buckets whose flags have bit 8, in bucket order
--   then ('x' only) the nr risk records of the request's scored subjects (hashes s, f, t, r; core/risk.types.ts),
--     the nv verified subjects' records first
--   then the claim key when ARGV[#ARGV-1] > 0, then the n told keys (bucket order) when ARGV[#ARGV] = n
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME) [2] clock 'r' (Redis TIME) | 'a' (app)
--   [3] 'g' | 'd' fast path: every bucket GCRA, none with a penalty (one MGET, one PSETEX per charged bucket).
--     'd' only: [4] degrade-at fraction [5] degraded hint '1'|'0'. Then per bucket i, at h + 4(i-1) (h = 3 for 'g',
--     5 for 'd'): tolerance µs (capacity × interval), increment µs (cost × interval), flags (1 shadow, 2 soft,
--     4 degradable), TTL ms of the key (full refill time + 1 s); then, 'd' only, per degradable bucket j, at
--     h + 4n + 2(j-1): tolerance and increment at the degrade factor. All as bucket-math.ts computes them.
--   [3] 'x' any buckets: [4] degrade-at fraction (0 = off) [5] degrade factor [6] degraded hint '1'|'0' [7] n;
--     then per bucket i, at 7 + 6(i-1): kind 'g' GCRA | 't' token bucket | 'f' fixed window | 'c' concurrency,
--     capacity (tokens), interval µs per token (window µs for 'f'), cost, flags (1 shadow, 2 soft, 4 degradable, 8 penalty,
--     16 risk-scaled, 64 paced),
--     TTL ms of the key (full refill time + 1 s: capacity × interval, which multipliers do not change)
--     then per penalty j, at 7 + 6n + 6(j-1): threshold, factor, decay µs, floor, max strikes,
--     pending strikes (refusals the app's deny cache answered since; added now, capped like all strikes)
--   then per paced bucket k (flag 64; kinds that pace: 'g', 't'), at 8 + 6n + 6·penalties + (k-1): its max wait µs
--     (a request that fits within it is admitted now, its slot reserved: the app makes it wait)
--   then per warm-up bucket m (kind 'w': lib/kind_gcra_warm.lua), at 8 + 6n + 6·penalties + paced + (m-1): its
--     warm-up µs
--   then [R0 = 8 + 6n + 6·penalties + paced + warm] nr (risk records, 0 = none); when nr > 0: nv (verified ones, 0 = none), point
--     decay µs, new-subject window µs, new-subject weight, reputation period µs, points per period, reputation max,
--     tier bonus, record TTL ms, touch µs, address window µs, number of bands nb, then nb pairs (below,
--     multiplier): the last band takes every higher score, then the quiet TTL ms (a record younger than one
--     reputation period: lib/risk.lua risk_ttl)
--   then ('x' only) [#ARGV-2] the request's lease id (leased kinds: concurrency; '' when it has none)
--   Both paths end with: [#ARGV-1] claim TTL ms (0 = no claim) [#ARGV] told keys (0, or n for onLimit flag)
-- Returns: { 'dup' } when the claim key was taken already (nothing read, decided or charged); { 'again' } when it
--   held 'c' (given back with its charge kept: RateLimitClaims.release) and is now taken again: allowed, nothing
--   decided or charged a second time. Else the state read
--   before the decision, as stored (nil = absent), then 5 integers:
--   { TAT of each GCRA bucket (bucket order), strike TAT of each penalty key (KEYS order),
--     tokens, ts | count, window end | live leases, first expiry of each token bucket | fixed window | concurrency
--     (bucket order),
--     s, f, t, r of each risk record ('x' only, KEYS order),
--     now µs, allowed 1|0, degraded 1|0, notify 1|0, blocker (0-based; -1 unless refused with told keys) }
-- Claim: SET NX PX <claim TTL> before the decision, so it is set whatever the decision. Told: on a refusal, the
--   told key of the blocker (the enforced refusing bucket with the longest retry-after, the first on ties, as
--   bucket-math.ts picks it) is SET NX PX max(its retry-after, its window = key TTL − 1 s: capacity ÷ rate, or
--   the fixed window) ms, so a flooding subject is told once per window; notify = it was set now.
-- Every key written gets a TTL (full refill time + 1 s); stored times never move backwards; a refusal writes
-- nothing but penalty strikes (strike TATs are capped at max strikes × decay from now). Values are decimal:
-- integers as %d, others as %.17g (the exact round trip of the doubles; both read back with tonumber).
-- Includes: lib/clock.lua lib/kinds.lua lib/kind_*.lua lib/risk.lua lib/penalty.lua lib/decide_fast.lua
local tonumber = tonumber
local CT, NT = tonumber(ARGV[#ARGV - 1]), tonumber(ARGV[#ARGV])
local NX = NT + (CT > 0 and 1 or 0)
if CT > 0 and not redis.call('SET', KEYS[#KEYS - NT], '1', 'NX', 'PX', CT) then
  -- Given back with its charge kept ('c'): taken again ('1', same expiry), nothing decided or charged again.
  if redis.call('GET', KEYS[#KEYS - NT]) ~= 'c' then return { 'dup' } end
  redis.call('SET', KEYS[#KEYS - NT], '1', 'XX', 'KEEPTTL')
  return { 'again' }
end
-- told(blocker 1-based, retry ms, key TTL ms): the refusal's told key SET NX for max(retry-after, window); 1 when
-- set now. The window is the blocker's key TTL less its 1 s margin (full refill time; the window for 'f').
local function told(bl, ms, ttl)
  if NT == 0 or bl == 0 then return 0 end
  ms = math.max(ms, tonumber(ttl) - 1000, 1)
  return redis.call('SET', KEYS[#KEYS - NT + bl], '1', 'NX', 'PX', ms) and 1 or 0
end
if ARGV[3] ~= 'x' then return decide_fast(told, NT, NX) end

-- The general path: any rule kinds (KINDS, lib/kind_*.lua), penalties, risk.
local degradeAt = tonumber(ARGV[4])
local degraded = ARGV[6] == '1'
local n = tonumber(ARGV[7])
local np, npc, nw = 0, 0, 0
for i = 1, n do
  if ARGV[6 + i * 6] % 16 >= 8 then np = np + 1 end
  if ARGV[6 + i * 6] % 128 >= 64 then npc = npc + 1 end
  if ARGV[2 + i * 6] == 'w' then nw = nw + 1 end
end
local R0 = 8 + n * 6 + np * 6 + npc + nw
local nr = tonumber(ARGV[R0])
-- Read: one MGET for the string kinds' buckets then the penalty keys (its reply starts the output), one HMGET per
-- hash kind's bucket (appended). KD kind, V value, X second value (the hash's second field).
local KD, mk = {}, {}
for i = 1, n do
  KD[i] = KINDS[ARGV[2 + i * 6]]
  if not KD[i].fields then mk[#mk + 1] = KEYS[i] end
end
local ng = #mk
for j = 1, np do mk[ng + j] = KEYS[n + j] end
local out = {}
if #mk > 0 then out = redis.call('MGET', unpack(mk)) end
local o, g = #mk, 0
local V, X = {}, {}
for i = 1, n do
  local fields = KD[i].fields
  if not fields then
    g = g + 1
    V[i] = tonumber(out[g])
  else
    local h
    if KD[i].read then h = { KD[i].read(KEYS[i]) } else h = redis.call('HMGET', KEYS[i], unpack(fields)) end
    for f = 1, #fields do out[o + f] = h[f] end
    o = o + #fields
    if h[1] then V[i], X[i] = tonumber(h[1]), tonumber(h[2]) end
  end
end
local pen = np > 0 and penalties(n, out, ng) or nil
if degradeAt > 0 and not degraded then
  for i = 1, n do
    local b = 2 + i * 6
    if V[i] and ARGV[b + 4] % 4 >= 2 and KD[i].used(V[i], X[i], tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2])) >= degradeAt then
      degraded = true
    end
  end
end
-- Risk: the verified subjects' worst score (with none verified: every record's) less the tier bonus picks the
-- band multiplier RM of the flag-16 buckets, lowered by one band at most by a recently signalled unproven record
-- (lib/risk.lua). A record is created at first sight, its TTL refreshed at most every touch µs.
local RM = 1
if nr > 0 then
  local nv, c, worst, addr = tonumber(ARGV[R0 + 1]), R0 + 2, nil, nil
  for j = 1, nr do
    local rk = KEYS[n + np + j]
    local h = redis.call('HMGET', rk, 's', 'f', 't', 'r')
    out[o + 1], out[o + 2], out[o + 3], out[o + 4] = h[1], h[2], h[3], h[4]
    o = o + 4
    local f = tonumber(h[2])
    if nv == 0 or j <= nv then
      local sc = risk_score(tonumber(h[1]), f, c)
      if not worst or sc > worst then worst = sc end
    elseif risk_recent(tonumber(h[4]), c) then
      local sc = risk_score(tonumber(h[1]), f, c)
      if not addr or sc > addr then addr = sc end
    end
    risk_touch(rk, f, tonumber(h[3]), c)
  end
  RM = risk_band(worst, addr, c)
end
-- Decide. OK: the bucket fits; W: value to write; TS: its second field. BL / WORST: the blocker (1-based) and its
-- retry-after ms.
local allowed, OK, W, TS = true, {}, {}, {}
local BL, WORST = 0, -1
local pc, wc = R0 - npc - nw, R0 - nw
for i = 1, n do
  local b = 2 + i * 6
  local fl = tonumber(ARGV[b + 4])
  local wait, wu = 0, 0
  if fl % 128 >= 64 then wait, pc = tonumber(ARGV[pc]), pc + 1 end
  if ARGV[b] == 'w' then wu, wc = tonumber(ARGV[wc]), wc + 1 end
  local m = penalty_multiplier(pen, i)
  if degraded and fl % 8 >= 4 then m = m * tonumber(ARGV[5]) end
  if fl % 32 >= 16 then m = m * RM end
  local t = tonumber(ARGV[b + 2])
  if KD[i].scales then t = t / m end
  local ok, w, x = KD[i].decide(V[i], X[i], tonumber(ARGV[b + 1]) * m, t, tonumber(ARGV[b + 3]), wait, wu)
  OK[i] = ok
  if ok then
    W[i], TS[i] = w, x
  elseif fl % 2 == 0 then
    allowed = false
    if w > WORST then BL, WORST = i, w end
  end
end
if allowed then
  for i = 1, n do
    if W[i] then KD[i].write(KEYS[i], W[i], TS[i], ARGV[2 + i * 6 + 5], ARGV[#ARGV - 2]) end
  end
end
penalty_write(pen, n, allowed, OK)
local notify = 0
if not allowed then notify = told(BL, WORST, ARGV[2 + BL * 6 + 5]) end
out[o + 1], out[o + 2], out[o + 3] = now, allowed and 1 or 0, degraded and 1 or 0
out[o + 4], out[o + 5] = notify, (allowed or NT == 0) and -1 or BL - 1
return out

-- Decides the rate-limit buckets of SEVERAL requests in one call: the fast path of ratelimit_decide.lua (GCRA
-- buckets without penalty, risk-scaled or not) applied to each request in turn, in ARGV order, each request
-- all-or-nothing on its own. Every distinct bucket key is read once (one MGET) and written once at the end with
-- the value the last charge left; every risk record is read once (HMGET). A request sees what the requests before
-- it in the batch charged and touched, exactly as if each had been its own call at the same `now`. The app batches
-- the decisions that arrive in one event-loop turn (all keys in one hash slot), and replays the batch with
-- bucket-math.ts from the values read to get each request's figures.
-- KEYS: [1..k] the distinct bucket keys of the batch (one hash slot), then the claim keys and told keys the extras
--   below point to, then the NR distinct risk records (hashes s, f, t, r; core/risk.types.ts) (all in one slot)
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME) [2] clock 'r' (Redis TIME) | 'a' (app)
--   [3] number of distinct bucket specs S [4] number of distinct request shapes H [5] number of requests R
--   then per spec: key index into KEYS, tolerance µs (capacity × interval), increment µs (cost × interval), flags
--     (1 shadow, 2 soft, 4 degradable, 16 risk-scaled), TTL ms of the key (full refill time + 1 s); degradable only:
--     tolerance and increment at the degrade factor; risk-scaled only: capacity, interval µs, cost, degrade factor
--     (a scored request scales them by its band multiplier here, as bucket-math.ts does). As bucket-math.ts computes.
--     Flag 32, a hash kind (lib/kind_*.lua: 'c' concurrency, 'k' tokens): tolerance and increment are 0 and no
--     degradable or risk-scaled extras follow; instead: kind code, capacity, interval µs, cost, degrade factor (the
--     kind decides at capacity × m, m = degrade factor when degraded and degradable × band when risk-scaled).
--   then per shape: nb (its buckets), degrade-at fraction (0 = off), degraded hint '1'|'0', nb spec indexes
--   then per request, in decision order: its shape index.
--   then, only when some request has a claim or told keys: 'e' and per request (decision order): claim key index
--     (0 = none), claim TTL ms, index of its first told key (0 = none; its shape's nb told keys follow in order).
--   then, only when some request holds a lease (concurrency): 'l' and per request (decision order) its lease id.
--   then, only when some request is scored: 'k', NR, the number of parameter blocks P, P blocks of: point decay µs,
--     new-subject window µs, new-subject weight, reputation period µs, points per period, reputation max, tier
--     bonus, record TTL ms, touch µs, address window µs, number of bands nb, nb pairs (below, multiplier), quiet TTL ms (as
--     ratelimit_decide.lua); then per request (decision order): its block (0 = not scored) and, when scored, its
--     record count n, how many of them are verified subjects' (v, 0 = none; listed first) and the n indexes of its
--     records among the NR (1-based).
-- Returns: the values read (one per key before the risk records, as stored; nil = absent), then s, f, t, r of each
--   risk record as read, then per request in ARGV order -1 when its claim was taken already (a duplicate: nothing
--   decided, touched or charged), -2 when the claim held 'c' (given back with its charge kept) and is taken again
--   (allowed, nothing decided, touched or charged again), else allowed + 2 × degraded + 4 × notify + 8 × (blocker + 1) (blocker 0-based
--   among its buckets, only for a refusal with told keys; else 0), then now µs, then the second field of each hash
--   kind's key (KEYS order; its first field is its value above): as ratelimit_decide.lua reads them.
-- Claim: SET NX PX before the request is decided (set whatever the decision). Told: a refused request's blocker
--   (enforced, longest retry-after, first on ties: as bucket-math.ts) gets its told key SET NX PX max(retry-after,
--   window) ms, the window being the blocker's key TTL less its 1 s margin (full refill time).
-- Risk: as ratelimit_decide.lua, the verified records' worst score (none verified: every record's) less the tier
--   bonus picks the band, lowered by one band at most by a recently signalled unproven record; a record is created
--   at first sight and its TTL refreshed at most every touch µs (whatever the decision).
-- Every key written gets a TTL (full refill time + 1 s); a TAT only moves forwards; a refused request writes nothing
-- (it takes no lease and reserves no tokens). A hash kind's key is read once and written by each allowed request
-- (a lease each), which the next request sees.
-- Includes: lib/clock.lua lib/kinds.lua lib/kind_*.lua lib/risk.lua
local tonumber, max, min, fmt = tonumber, math.max, math.min, string.format

-- Specs: K key index, TA / IN tolerance and increment, F flags, L TTL, TD / ID at the degrade factor,
-- RC / RI / RQ / RF capacity, interval, cost and degrade factor of the risk-scaled ones.
-- Hash kinds (flag 32): KD kind, OC / OT / OQ / OF capacity, interval, cost, degrade factor; HK the kind of a key.
local K, TA, IN, F, L, TD, ID, RC, RI, RQ, RF = {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}
local KD, OC, OT, OQ, OF, HK = {}, {}, {}, {}, {}, {}
local p = 6
for s = 1, tonumber(ARGV[3]) do
  local fl = tonumber(ARGV[p + 3])
  K[s], TA[s], IN[s], F[s], L[s] = tonumber(ARGV[p]), tonumber(ARGV[p + 1]), tonumber(ARGV[p + 2]), fl, tonumber(ARGV[p + 4])
  p = p + 5
  if fl % 64 >= 32 then
    KD[s], OC[s], OT[s], OQ[s], OF[s] = KINDS[ARGV[p]], tonumber(ARGV[p + 1]), tonumber(ARGV[p + 2]), tonumber(ARGV[p + 3]), tonumber(ARGV[p + 4])
    HK[K[s]] = KD[s]
    p = p + 5
  elseif fl % 8 >= 4 then
    TD[s], ID[s] = tonumber(ARGV[p]), tonumber(ARGV[p + 1])
    p = p + 2
  end
  if fl % 32 >= 16 and not KD[s] then
    RC[s], RI[s], RQ[s], RF[s] = tonumber(ARGV[p]), tonumber(ARGV[p + 1]), tonumber(ARGV[p + 2]), tonumber(ARGV[p + 3])
    p = p + 4
  end
end
-- Shapes: HN bucket count, HA degrade-at, HH hint, HS spec indexes.
local HN, HA, HH, HS = {}, {}, {}, {}
for h = 1, tonumber(ARGV[4]) do
  local nb = tonumber(ARGV[p])
  HN[h], HA[h], HH[h] = nb, tonumber(ARGV[p + 1]), ARGV[p + 2] == '1'
  local S = {}
  for i = 1, nb do S[i] = tonumber(ARGV[p + 2 + i]) end
  HS[h] = S
  p = p + 3 + nb
end
local R = tonumber(ARGV[5])
local q = p + R
local e
if ARGV[q] == 'e' then
  e = q + 1
  q = q + 1 + 3 * R
end
local l
if ARGV[q] == 'l' then
  l = q + 1
  q = q + 1 + R
end
-- Risk: NR records (the last NR KEYS), their state RS / RFS / RT, the parameter blocks, and where each request's are.
local NR, k, PB = 0, nil, {}
if ARGV[q] == 'k' then
  NR = tonumber(ARGV[q + 1])
  local c = q + 3
  for b = 1, tonumber(ARGV[q + 2]) do
    PB[b] = c
    c = c + 12 + 2 * tonumber(ARGV[c + 10])
  end
  k = c
end
local nk = #KEYS - NR
-- Read: one MGET for the string keys; a hash kind's key through its kind (its two fields: CV = cur, CX).
local sk = {}
for i = 1, nk do
  if not HK[i] then sk[#sk + 1] = KEYS[i] end
end
local got = #sk > 0 and redis.call('MGET', unpack(sk)) or {}
local out, cur, CX, HX, ttl = {}, {}, {}, {}, {}
local g = 0
for i = 1, nk do
  local kd, v = HK[i], nil
  if kd then
    local h
    if kd.read then h = { kd.read(KEYS[i]) } else h = redis.call('HMGET', KEYS[i], unpack(kd.fields)) end
    v = h[1]
    HX[#HX + 1] = h[2]
    if v then CX[i] = tonumber(h[2]) end
  else
    g = g + 1
    v = got[g]
  end
  out[i] = v
  if v then cur[i] = tonumber(v) end
end
local RS, RFS, RT, RR = {}, {}, {}, {}
for j = 1, NR do
  local h = redis.call('HMGET', KEYS[nk + j], 's', 'f', 't', 'r')
  local o = nk + 4 * j
  out[o - 3], out[o - 2], out[o - 1], out[o] = h[1], h[2], h[3], h[4]
  RS[j], RFS[j], RT[j], RR[j] = tonumber(h[1]), tonumber(h[2]), tonumber(h[3]), tonumber(h[4])
end
local base = nk + 4 * NR

-- The band multiplier of the n records listed at ARGV[a..] (indexes among the NR; the first v verified) with the
-- block at c; touches them.
local function band(a, n, v, c)
  local worst, addr
  for x = a, a + n - 1 do
    local j = tonumber(ARGV[x])
    if v == 0 or x < a + v then
      local sc = risk_score(RS[j], RFS[j], c)
      if not worst or sc > worst then worst = sc end
    elseif risk_recent(RR[j], c) then
      local sc = risk_score(RS[j], RFS[j], c)
      if not addr or sc > addr then addr = sc end
    end
    RFS[j], RT[j] = risk_touch(KEYS[nk + j], RFS[j], RT[j], c)
  end
  return risk_band(worst, addr, c)
end

local W, WX = {}, {}
for r = 1, R do
  local h = tonumber(ARGV[p + r - 1])
  local nb, at, S = HN[h], HA[h], HS[h]
  local ci, tb, rb, rn, rv, ra = 0, 0, 0, 0, 0, 0
  if k then
    rb = tonumber(ARGV[k])
    if rb > 0 then
      rn, rv, ra = tonumber(ARGV[k + 1]), tonumber(ARGV[k + 2]), k + 3
      k = k + 3 + rn
    else
      k = k + 1
    end
  end
  if e then
    ci, tb = tonumber(ARGV[e + r * 3 - 3]), tonumber(ARGV[e + r * 3 - 1])
    if ci > 0 and not redis.call('SET', KEYS[ci], '1', 'NX', 'PX', ARGV[e + r * 3 - 2]) then
      nb = -1
      -- Given back with its charge kept ('c'): taken again, nothing decided or charged again (-2).
      if redis.call('GET', KEYS[ci]) == 'c' then
        redis.call('SET', KEYS[ci], '1', 'XX', 'KEEPTTL')
        nb = -2
      end
    end
  end
  if nb < 0 then
    out[base + r] = nb
  else
    local degraded = HH[h]
    if at > 0 and not degraded then
      for i = 1, nb do
        local s = S[i]
        local v = cur[K[s]]
        if v and F[s] % 4 >= 2 then
          if KD[s] then
            if KD[s].used(v, CX[K[s]], OC[s], OT[s]) >= at then degraded = true end
          elseif max(0, v - now) / TA[s] >= at then
            degraded = true
          end
        end
      end
    end
    local RM
    if rb > 0 then RM = band(ra, rn, rv, PB[rb]) end
    local allowed = true
    local bl, worst = 0, -1
    for i = 1, nb do
      local s = S[i]
      local tau, inc = TA[s], IN[s]
      if KD[s] then
        -- A hash kind decides itself (lib/kind_*.lua) on what the requests before this one left.
        local m = 1
        if degraded and F[s] % 8 >= 4 then m = m * OF[s] end
        if RM and F[s] % 32 >= 16 then m = m * RM end
        local t = OT[s]
        if KD[s].scales then t = t / m end
        local ok, w, x = KD[s].decide(cur[K[s]], CX[K[s]], OC[s] * m, t, OQ[s])
        W[i], WX[i] = ok and w, x
        if not ok and F[s] % 2 == 0 then
          allowed = false
          if tb > 0 and w > worst then bl, worst = i, w end
        end
      elseif RM and RC[s] then
        -- capacity × m and interval ÷ m, m = (degrade factor) × band: the doubles bucket-math.ts computes
        local m = 1
        if degraded and TD[s] then m = m * RF[s] end
        m = m * RM
        local T = RI[s] / m
        tau, inc = RC[s] * m * T, RQ[s] * T
      elseif degraded and TD[s] then
        tau, inc = TD[s], ID[s]
      end
      local tat = cur[K[s]]
      if not tat or tat < now then tat = now end
      local nxt = tat + inc
      if KD[s] then
        -- decided above
      elseif nxt - now <= tau + EPS then
        W[i] = nxt
      else
        W[i] = false
        if F[s] % 2 == 0 then
          allowed = false
          if tb > 0 then
            local rt = nxt - tau - now
            if inc > tau + EPS then rt = max(tat - now, 1e6) end
            rt = math.ceil(rt / 1000)
            if rt > worst then bl, worst = i, rt end
          end
        end
      end
    end
    local notify = 0
    if bl > 0 and redis.call('SET', KEYS[tb + bl - 1], '1', 'NX', 'PX', max(1, worst, L[S[bl]] - 1000)) then
      notify = 1
    end
    if allowed then
      for i = 1, nb do
        local w = W[i]
        if w then
          local s = S[i]
          local ki = K[s]
          if KD[s] then
            KD[s].write(KEYS[ki], w, WX[i], L[s], l and ARGV[l + r - 1])
            -- What the next request reads: one more lease (the first expiry the earliest), or the value written.
            if KD[s].lease then
              cur[ki], CX[ki] = (cur[ki] or 0) + 1, min(CX[ki] or w, w)
            else
              cur[ki], CX[ki] = w, WX[i]
            end
          else
            cur[ki] = w
            if not ttl[ki] or L[s] > ttl[ki] then ttl[ki] = L[s] end
          end
        end
      end
    end
    out[base + r] = (allowed and 1 or 0) + (degraded and 2 or 0) + 4 * notify + 8 * bl
  end
end
for ki, t in pairs(ttl) do
  local v = cur[ki]
  if v % 1 == 0 then v = fmt('%d', v) else v = fmt('%.17g', v) end
  redis.call('PSETEX', KEYS[ki], t, v)
end
out[base + R + 1] = now
for j = 1, #HX do out[base + R + 1 + j] = HX[j] end
return out

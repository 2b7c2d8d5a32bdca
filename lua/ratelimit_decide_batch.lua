-- Decides the rate-limit buckets of SEVERAL requests in one call: the fast path of ratelimit_decide.lua (GCRA
-- buckets without penalty) applied to each request in turn, in ARGV order, each request all-or-nothing on its own.
-- Every distinct key is read once (one MGET) and written once at the end with the value the last charge left; a
-- request sees what the requests before it in the batch charged, exactly as if each had been its own call at the
-- same `now`. The app batches the decisions that arrive in one event-loop turn (all keys in one hash slot), and
-- replays the batch with bucket-math.ts from the values read to get each request's figures.
-- KEYS: [1..k] the distinct bucket keys of the batch (one hash slot), then the claim keys and told keys the extras
--   below point to (same slot)
-- ARGV: [1] app clock, epoch µs (used when [2] is 'a' or Redis refuses TIME) [2] clock 'r' (Redis TIME) | 'a' (app)
--   [3] number of distinct bucket specs S [4] number of distinct request shapes H [5] number of requests R
--   then per spec: key index into KEYS, tolerance µs (capacity × interval), increment µs (cost × interval), flags
--     (1 shadow, 2 soft, 4 degradable), TTL ms of the key (full refill time + 1 s) and, degradable only, tolerance
--     and increment at the degrade factor. All as bucket-math.ts computes them.
--   then per shape: nb (its buckets), degrade-at fraction (0 = off), degraded hint '1'|'0', nb spec indexes
--   then per request, in decision order: its shape index.
--   then, only when some request has a claim or told keys: 'e' and per request (decision order): claim key index
--     (0 = none), claim TTL ms, index of its first told key (0 = none; its shape's nb told keys follow in order).
-- Returns: the values read (one per key, as stored; nil = absent), then per request in ARGV order -1 when its claim
--   was taken already (a duplicate: nothing decided or charged), else allowed + 2 × degraded + 4 × notify +
--   8 × (blocker + 1) (blocker 0-based among its buckets, only for a refusal with told keys; else 0), then now µs.
-- Claim: SET NX PX before the request is decided (set whatever the decision). Told: a refused request's blocker
--   (enforced, longest retry-after, first on ties: as bucket-math.ts) gets its told key SET NX PX max(retry-after,
--   window) ms, the window being the blocker's key TTL less its 1 s margin (full refill time).
-- Every key written gets a TTL (full refill time + 1 s); a TAT only moves forwards; a refused request writes nothing.
local now
if ARGV[2] == 'r' then
  local ok, t = pcall(redis.call, 'TIME')
  if ok then now = t[1] * 1000000 + t[2] else now = tonumber(ARGV[1]) end
else
  now = tonumber(ARGV[1])
end
local EPS = 1e-9
local tonumber, max = tonumber, math.max

local out = redis.call('MGET', unpack(KEYS))
local nk = #KEYS
local cur, ttl = {}, {}
for i = 1, nk do
  local v = out[i]
  if v then cur[i] = tonumber(v) end
end

-- Specs: K key index, TA / IN tolerance and increment, F flags, L TTL, TD / ID at the degrade factor.
local K, TA, IN, F, L, TD, ID = {}, {}, {}, {}, {}, {}, {}
local p = 6
for s = 1, tonumber(ARGV[3]) do
  local fl = tonumber(ARGV[p + 3])
  K[s], TA[s], IN[s], F[s], L[s] = tonumber(ARGV[p]), tonumber(ARGV[p + 1]), tonumber(ARGV[p + 2]), fl, tonumber(ARGV[p + 4])
  if fl % 8 >= 4 then
    TD[s], ID[s] = tonumber(ARGV[p + 5]), tonumber(ARGV[p + 6])
    p = p + 7
  else
    p = p + 5
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

local W = {}
local R = tonumber(ARGV[5])
local e = ARGV[p + R] == 'e' and p + R + 1 or nil
for r = 1, R do
  local h = tonumber(ARGV[p + r - 1])
  local nb, at, S = HN[h], HA[h], HS[h]
  local ci, tb = 0, 0
  if e then
    ci, tb = tonumber(ARGV[e + r * 3 - 3]), tonumber(ARGV[e + r * 3 - 1])
    if ci > 0 and not redis.call('SET', KEYS[ci], '1', 'NX', 'PX', ARGV[e + r * 3 - 2]) then nb = -1 end
  end
  if nb < 0 then
    out[nk + r] = -1
  else
    local degraded = HH[h]
    if at > 0 and not degraded then
      for i = 1, nb do
        local s = S[i]
        local v = cur[K[s]]
        if v and F[s] % 4 >= 2 and max(0, v - now) / TA[s] >= at then degraded = true end
      end
    end
    local allowed = true
    local bl, worst = 0, -1
    for i = 1, nb do
      local s = S[i]
      local tau, inc = TA[s], IN[s]
      if degraded and TD[s] then tau, inc = TD[s], ID[s] end
      local tat = cur[K[s]]
      if not tat or tat < now then tat = now end
      local nxt = tat + inc
      if nxt - now <= tau + EPS then
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
          local k = K[s]
          cur[k] = w
          if not ttl[k] or L[s] > ttl[k] then ttl[k] = L[s] end
        end
      end
    end
    out[nk + r] = (allowed and 1 or 0) + (degraded and 2 or 0) + 4 * notify + 8 * bl
  end
end
for k, t in pairs(ttl) do
  local v = cur[k]
  if v % 1 == 0 then v = string.format('%d', v) else v = string.format('%.17g', v) end
  redis.call('PSETEX', KEYS[k], t, v)
end
out[nk + R + 1] = now
return out

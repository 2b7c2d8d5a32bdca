-- Defines the progressive penalties of ratelimit_decide.lua's general path, as src/locks/rate-limit/core/
-- bucket-math.ts does them (same operations, same order). A penalty's ARGV block at pb + 1..6: threshold, factor,
-- decay µs, floor, max strikes, pending strikes (refusals the app's deny cache answered since; added now).
-- Needs `now` (lib/clock.lua).
-- penalties(n, out, ng): per penalized bucket i (flag 8) its strike state from the MGET reply (strike TATs at
-- out[ng + j]): { S = strikes alive, P = strike TAT with pending strikes added, PB = ARGV base, PJ = penalty
-- index, D = changed by pending strikes }, or nil when no bucket has a penalty.
local function penalties(n, out, ng)
  local pen, pj = nil, 0
  for i = 1, n do
    if ARGV[6 + i * 6] % 16 >= 8 then
      pen = pen or { S = {}, P = {}, PB = {}, PJ = {}, D = {} }
      pj = pj + 1
      local pb = 7 + n * 6 + (pj - 1) * 6
      pen.PB[i], pen.PJ[i] = pb, pj
      local pt = tonumber(out[ng + pj])
      if tonumber(ARGV[pb + 6]) > 0 then
        local d = tonumber(ARGV[pb + 3])
        pt = math.min(math.max(pt or now, now) + tonumber(ARGV[pb + 6]) * d, now + tonumber(ARGV[pb + 5]) * d)
        pen.D[i] = true
      end
      pen.P[i] = pt
      if pt and pt > now then pen.S[i] = math.ceil((pt - now) / tonumber(ARGV[pb + 3])) end
    end
  end
  return pen
end
-- penalty_multiplier(pen, i): factor^(strikes - threshold + 1) by repeated products (the same doubles as
-- bucket-math.ts), never below the floor; 1 below the threshold or without a penalty.
local function penalty_multiplier(pen, i)
  local pb = pen and pen.PB[i]
  if not pb then return 1 end
  local s, th = pen.S[i], tonumber(ARGV[pb + 1])
  if not s or s < th then return 1 end
  local f = tonumber(ARGV[pb + 2])
  local p = f
  for _ = 2, s - th + 1 do p = p * f end
  return math.max(tonumber(ARGV[pb + 4]), p)
end
-- penalty_write(pen, n, allowed, OK): a strike for each enforced penalized bucket that refused a refused request
-- (capped at max strikes × decay from now), and the pending strikes; each key lives until its strikes decay + 1 s.
local function penalty_write(pen, n, allowed, OK)
  if not pen then return end
  for i = 1, n do
    local pb = pen.PB[i]
    local struck = pb and not allowed and ARGV[6 + i * 6] % 2 == 0 and not OK[i]
    if pb and (struck or pen.D[i]) then
      local pt = pen.P[i]
      if struck then
        local d = tonumber(ARGV[pb + 3])
        pt = math.min(math.max(pt or now, now) + d, now + tonumber(ARGV[pb + 5]) * d)
      end
      redis.call('SET', KEYS[n + pen.PJ[i]], pt, 'PX', math.ceil((pt - now) / 1000) + 1000)
    end
  end
end

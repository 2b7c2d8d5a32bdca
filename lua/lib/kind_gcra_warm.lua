-- KINDS.w, GCRA with warm-up (src/locks/rate-limit/core/kinds/gcra-warm.ts): a hash of the TAT tat and the start
-- ws of the current warm-up. The interval is scaled by the warm-up factor, then KINDS.g decides on the TAT.
local COLD = 3
-- The interval factor at now (1 = full rate) and the warm-up start it keeps (gcra-warm.ts warmFactor): cold
-- (absent, or full and idle for at least wu µs) starts a warm-up now at COLD, falling linearly to 1 over wu µs.
local function warm_factor(v, x, wu)
  local ws = x
  if not v or now - v >= wu then ws = now end
  local e = math.max(0, now - ws)
  if e >= wu then return 1, ws end
  return COLD - (COLD - 1) * e / wu, ws
end
KINDS.w = {
  fields = { 'tat', 'ws' },
  scales = true,
  used = function(v, x, cap, T)
    if not v then return 0 end
    return math.max(0, v - now) / (cap * T)
  end,
  -- w: the wait µs of a paced bucket (0 = none); wu: the warm-up µs.
  decide = function(v, x, c, t, q, w, wu)
    local f, ws = warm_factor(v, x, wu)
    local ok, r = KINDS.g.decide(v, nil, c, t * f, q, w)
    if ok then return true, r, ws end
    return false, r
  end,
  write = function(key, w, x, ttl)
    if w % 1 == 0 then w = string.format('%d', w) else w = string.format('%.17g', w) end
    redis.call('HSET', key, 'tat', w, 'ws', string.format('%d', x))
    redis.call('PEXPIRE', key, ttl)
  end,
  -- A refund moves the TAT back, never below now (the warm-up start is kept).
  refund = function(key, charged, cap)
    local tat = tonumber(redis.call('HGET', key, 'tat'))
    if not tat then return 0 end
    redis.call('HSET', key, 'tat', string.format('%.17g', math.max(tat - charged, now)))
    return 1
  end,
}

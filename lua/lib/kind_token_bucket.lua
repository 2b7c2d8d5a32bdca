-- KINDS.t, token bucket (src/locks/rate-limit/core/kinds/token-bucket.ts): a hash of tokens t and their time ts.
KINDS.t = {
  fields = { 't', 'ts' },
  scales = true,
  used = function(v, x, cap, T)
    if not v then return 0 end
    return 1 - math.min(cap, v + math.max(0, now - x) / T) / cap
  end,
  -- w: the wait µs of a paced bucket (0 = none): up to w / t tokens may be owed, so the tokens may go below zero.
  decide = function(v, x, c, t, q, w)
    local ts, tokens = now, c
    if v then ts, tokens = math.max(x, now), math.min(c, v + math.max(0, now - x) / t) end
    local owe = w / t
    if tokens + owe + EPS >= q then return true, tokens - q, ts end
    if q > c + owe + EPS then return false, math.ceil(math.max((c - tokens) * t, 1e6) / 1000) end
    return false, math.ceil((q - tokens - owe) * t / 1000)
  end,
  write = function(key, w, x, ttl)
    redis.call('HSET', key, 't', w, 'ts', x)
    redis.call('PEXPIRE', key, ttl)
  end,
  refund = function(key, charged, cap)
    local t = tonumber(redis.call('HGET', key, 't'))
    if not t then return 0 end
    redis.call('HSET', key, 't', string.format('%.17g', math.min(cap, t + charged)))
    return 1
  end,
}

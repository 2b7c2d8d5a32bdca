-- KINDS.k, token budgets (src/locks/rate-limit/core/kinds/tokens.ts): a hash of the tokens used c (reservations
-- included) and the end e of the window, aligned to the epoch (floor(now / t) · t + t); multipliers scale the count
-- only; a window that is over counts as absent. Settled by ratelimit_settle.lua when the answer ends.
KINDS.k = {
  fields = { 'c', 'e' },
  scales = false,
  used = function(v, x, cap, T)
    if not v or x <= now then return 0 end
    return v / cap
  end,
  decide = function(v, x, c, t, q)
    local count, exp = 0, math.floor(now / t) * t + t
    if v and x > now then count, exp = v, x end
    if count + q <= c + EPS then return true, count + q, exp end
    return false, math.max(1, math.ceil((exp - now) / 1000))
  end,
  write = function(key, w, x, ttl)
    redis.call('HSET', key, 'c', string.format('%d', w), 'e', string.format('%d', x))
    redis.call('PEXPIRE', key, ttl)
  end,
  refund = function(key, charged, cap)
    local c = tonumber(redis.call('HGET', key, 'c'))
    if not c then return 0 end
    redis.call('HSET', key, 'c', string.format('%d', math.max(0, c - charged)))
    return 1
  end,
}

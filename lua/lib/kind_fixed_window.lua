-- KINDS.f, fixed window (src/locks/rate-limit/core/kinds/fixed-window.ts, the fuse): a hash of the count c and
-- the window's end e; multipliers scale the count only; a window that is over counts as absent.
KINDS.f = {
  fields = { 'c', 'e' },
  scales = false,
  used = function(v, x, cap, T)
    if not v or x <= now then return 0 end
    return v / cap
  end,
  decide = function(v, x, c, t, q)
    local count, exp = 0, now + t
    if v and x > now then count, exp = v, x end
    if count + q <= c + EPS then return true, count + q, exp end
    return false, math.max(1, math.max(0, math.ceil((exp - now) / 1000)))
  end,
  write = function(key, w, x, ttl)
    redis.call('HSET', key, 'c', w, 'e', x)
    redis.call('PEXPIRE', key, ttl)
  end,
  refund = function(key, charged, cap)
    local c = tonumber(redis.call('HGET', key, 'c'))
    if not c then return 0 end
    redis.call('HSET', key, 'c', math.max(0, c - charged))
    return 1
  end,
}

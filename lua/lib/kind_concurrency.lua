-- KINDS.c, concurrency leases (src/locks/rate-limit/core/kinds/concurrency.ts): a sorted set of lease ids scored by
-- their expiry µs. read prunes the expired leases and gives their count n and the first expiry e (false when none);
-- one lease per request whatever its cost; multipliers scale the count only, never below 1. A refusal waits until
-- the first lease expires, at most 1 s (a slot comes back whenever an answer ends).
KINDS.c = {
  fields = { 'n', 'e' },
  scales = false,
  lease = true,
  read = function(key)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    local n = redis.call('ZCARD', key)
    if n == 0 then return 0, false end
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return n, tonumber(first[2])
  end,
  used = function(v, x, cap, T)
    return (v or 0) / cap
  end,
  decide = function(v, x, c, t, q)
    c = math.max(1, c)
    if (v or 0) + 1 <= c + EPS then return true, now + t end
    local ms = 1000
    if x then ms = math.ceil((x - now) / 1000) end
    return false, math.max(1, math.min(1000, ms))
  end,
  write = function(key, w, x, ttl, lease)
    redis.call('ZADD', key, string.format('%d', w), lease)
    redis.call('PEXPIRE', key, ttl)
  end,
  refund = function(key, lease)
    return redis.call('ZREM', key, lease)
  end,
}

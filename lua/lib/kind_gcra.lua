-- KINDS.g, GCRA (src/locks/rate-limit/core/kinds/gcra.ts): one theoretical arrival time (TAT) per key, a string.
KINDS.g = {
  scales = true,
  used = function(v, x, cap, T)
    if not v then return 0 end
    return math.max(0, v - now) / (cap * T)
  end,
  -- w: the wait µs of a paced bucket (0 = none): one that fits within it is admitted, its slot reserved.
  decide = function(v, x, c, t, q, w)
    local tat = v
    if not tat or tat < now then tat = now end
    local nxt, tau = tat + q * t, c * t
    if nxt - now <= tau + w + EPS then return true, nxt end
    if q * t > tau + w + EPS then return false, math.ceil(math.max(tat - now, 1e6) / 1000) end
    return false, math.ceil((nxt - tau - w - now) / 1000)
  end,
  write = function(key, w, x, ttl)
    if w % 1 == 0 then w = string.format('%d', w) end
    redis.call('PSETEX', key, ttl, w)
  end,
  refund = function(key, charged, cap)
    local tat = tonumber(redis.call('GET', key))
    if not tat then return 0 end
    local nt = tat - charged
    if nt > now then
      redis.call('SET', key, string.format('%.17g', nt), 'PX', math.ceil((nt - now) / 1000) + 1000)
    else
      redis.call('DEL', key)
    end
    return 1
  end,
}

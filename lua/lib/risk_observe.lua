-- Defines risk_observe(now, k, c, last): applies a batch of risk observations (lua/ratelimit_risk_observe.lua's
-- contract, also carried by the instance heartbeat): `now` epoch µs; KEYS from k on, per observation its record,
-- then for 'p' its payload marker, for 'c' its chat set; ARGV[c..c+9] the parameters (point decay µs, max score,
-- record TTL ms, payload window ms, chat limit, chat window ms, points of a repeated_payload, of a chat_spread,
-- quiet TTL ms, reputation period µs), then the observations up to ARGV[last]. Returns the signals raised.
local function risk_observe(now, k, c, last)
  local unit, maxS, ttl = tonumber(ARGV[c]), tonumber(ARGV[c + 1]), ARGV[c + 2]
  local quiet, period = ARGV[c + 8], tonumber(ARGV[c + 9])
  local fmt = string.format
  local nows = fmt('%d', now)

  -- `times` observations of one signal: each adds its points in turn (the same float operations as `times`
  -- separate calls; writing the score as %.17g and reading it back is exact), one count of count × times.
  local function raise(rk, name, count, points, times)
    local h = redis.call('HMGET', rk, 's', 'f')
    local s, f = tonumber(h[1]), tonumber(h[2])
    for _ = 1, times do
      local base = now
      if s and s > now then base = s end
      s = math.min(base + points * unit, now + maxS * unit)
    end
    redis.call('HSET', rk, 's', fmt('%.17g', s), 'r', nows, 'l:' .. name, nows)
    redis.call('HINCRBY', rk, 'n:' .. name, count * times)
    if redis.call('HSETNX', rk, 'f', nows) == 1 then redis.call('HSET', rk, 't', nows) end
    if f and now - f >= period then redis.call('PEXPIRE', rk, ttl) else redis.call('PEXPIRE', rk, quiet) end
  end

  local raised, a = 0, c + 10
  while a <= last do
    local kind, rk = ARGV[a], KEYS[k]
    if kind == 's' then
      local times = tonumber(ARGV[a + 4])
      raise(rk, ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), times)
      raised = raised + times
      k, a = k + 1, a + 5
    elseif kind == 'p' then
      if not redis.call('SET', KEYS[k + 1], '1', 'NX', 'PX', ARGV[c + 3]) then
        raise(rk, 'repeated_payload', 1, tonumber(ARGV[c + 6]), 1)
        raised = raised + 1
      end
      k, a = k + 2, a + 1
    else
      local set = KEYS[k + 1]
      redis.call('ZADD', set, now, ARGV[a + 1])
      redis.call('ZREMRANGEBYSCORE', set, '-inf', now - tonumber(ARGV[c + 5]) * 1000)
      redis.call('PEXPIRE', set, ARGV[c + 5])
      if redis.call('ZCARD', set) > tonumber(ARGV[c + 4]) then
        raise(rk, 'chat_spread', 1, tonumber(ARGV[c + 7]), 1)
        raised = raised + 1
      end
      k, a = k + 2, a + 2
    end
  end
  return raised
end

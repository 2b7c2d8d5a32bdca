-- Settles token reservations (lib/kind_tokens.lua) when answers have ended: each reservation is given back and what
-- the upstream reported is charged instead, in the window the reservation went to only (a window that is over took
-- its reservation with it). Several requests' settlements may share one call (same hash slot).
-- KEYS: [1..n] token budget keys
-- ARGV: per key i, at 3(i-1): reserved tokens, used tokens, end of the reservation's window (µs)
-- Returns: number of keys settled (a key whose window ended or expired is left alone). TTLs are kept.
local done = 0
for i = 1, #KEYS do
  local b = (i - 1) * 3
  local h = redis.call('HMGET', KEYS[i], 'c', 'e')
  local c = tonumber(h[1])
  if c and tonumber(h[2]) == tonumber(ARGV[b + 3]) then
    local n = math.max(0, c - tonumber(ARGV[b + 1]) + tonumber(ARGV[b + 2]))
    redis.call('HSET', KEYS[i], 'c', string.format('%d', n))
    done = done + 1
  end
end
return done

-- Gives back concurrency leases (lib/kind_concurrency.lua) when answers have ended or their clients went away; a
-- lease nobody gives back expires by itself (its score), and the decision prunes it. Several requests' releases
-- may share one call (same hash slot: the releases asked for in one event-loop turn).
-- KEYS: [1..n] the sorted sets the leases were taken in (one hash slot)
-- ARGV: [i] the lease id to remove from KEYS[i]
-- Returns: number of leases removed (0 when they had expired already)
local done = 0
for i = 1, #KEYS do
  done = done + redis.call('ZREM', KEYS[i], ARGV[i])
end
return done

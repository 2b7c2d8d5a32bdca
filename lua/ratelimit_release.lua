-- Gives back one request's concurrency leases (lib/kind_concurrency.lua) when its answer has ended or its client
-- went away; a lease nobody gives back expires by itself (its score), and the decision prunes it.
-- KEYS: [1..n] the sorted sets the request took a lease in (one hash slot)
-- ARGV: [1] the request's lease id
-- Returns: number of leases removed (0 when they had expired already)
local done = 0
for i = 1, #KEYS do
  done = done + redis.call('ZREM', KEYS[i], ARGV[1])
end
return done

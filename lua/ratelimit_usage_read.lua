-- Reads usage bucket hashes (docs/quotas.md#usage-and-spend) for the admin API: one call for a query's buckets.
-- KEYS: [1..n] usage bucket keys (one hash slot: the service tag)
-- ARGV: none
-- Returns: per key, its HGETALL (a flat field, value list; empty when the bucket has no usage)
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('HGETALL', KEYS[i])
end
return out

-- Commits a new version of the route policy set, only if the active version
-- is still the one the change was made from (optimistic concurrency), keeps
-- the history bounded and announces the new version. All keys share the
-- service hash tag {<env>:<service>}, so this is one atomic step on Cluster too.
-- KEYS: [1] active version number           cfg:{…}:policies:active (also the INCR counter)
--       [2] history hash, version → meta JSON  cfg:{…}:policies:meta
--       [3] key of the new version            cfg:{…}:policies:v:<expected + 1>
--       [4] key of the version that leaves the history (v:0 when none)
-- ARGV: [1] expected active version (0 = nothing stored yet)
--       [2] JSON of the new version (meta and policies)
--       [3] JSON of the new version's meta (no policies)
--       [4] number of the version that leaves the history (0 = none)
--       [5] pub/sub channel that announces the new version
-- Returns: {1, new version} when committed;
--          {0, active version} when another change came first (nothing written)
local active = tonumber(redis.call('GET', KEYS[1]) or '0')
if active ~= tonumber(ARGV[1]) then
  return {0, active}
end
local version = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[2], version, ARGV[3])
local pruned = tonumber(ARGV[4])
if pruned > 0 then
  redis.call('DEL', KEYS[4])
  redis.call('HDEL', KEYS[2], pruned)
end
redis.call('PUBLISH', ARGV[5], version)
return {1, version}

-- Stores one API client app definition (secrets included: the signature
-- lock needs them for HMAC) if its revision is still the one the change was
-- made from, bumps the apps version and announces it.
-- KEYS: [1] apps hash, app id → JSON {rev, definition}  cfg:{…}:apps
--       [2] apps version counter                      cfg:{…}:apps:version
-- ARGV: [1] app id
--       [2] expected revision of that app (0 = not stored yet)
--       [3] JSON {rev = expected + 1, definition}
--       [4] pub/sub channel that announces the new apps version
-- Returns: {1, new apps version} when stored;
--          {0, current revision} when another change came first (nothing written)
local current = redis.call('HGET', KEYS[1], ARGV[1])
local rev = 0
if current then
  rev = tonumber(cjson.decode(current).rev) or 0
end
if rev ~= tonumber(ARGV[2]) then
  return {0, rev}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[4], version)
return {1, version}

-- Liveness probe of the script loader: echoes its argument and Redis time.
-- KEYS: none
-- ARGV: [1] any string
-- Returns: { ARGV[1], seconds, microseconds } from Redis TIME
local t = redis.call('TIME')
return { ARGV[1], t[1], t[2] }

-- Takes or renews the lease of a polling bot's poller (one instance polls a bot at a time), and reads the offset.
-- KEYS: [1] the bot's poll lease key [2] the bot's offset key (same hash tag)
-- ARGV: [1] the instance's poller id [2] lease ms
-- Returns: { 1, offset } when this poller holds the lease now (taken or renewed for ARGV[2] ms; offset 0 when none
--   was committed yet), else { 0, ms left on the other poller's lease }
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return { 0, redis.call('PTTL', KEYS[1]) } end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return { 1, tonumber(redis.call('GET', KEYS[2]) or '0') }

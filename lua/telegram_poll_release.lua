-- Gives a polling bot's lease back (an instance shutting down), so another instance takes the bot over at once.
-- KEYS: [1] the bot's poll lease key
-- ARGV: [1] the instance's poller id
-- Returns: 1 when this poller held the lease and it is gone, else 0 (another poller's lease is left alone)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])

-- Advances a polling bot's offset after a batch of updates went through the pipeline, only while the caller
-- still holds the lease (a poller that lost it cannot move the offset), and renews the lease.
-- KEYS: [1] the bot's poll lease key [2] the bot's offset key (same hash tag)
-- ARGV: [1] the instance's poller id [2] new offset (last handled update_id + 1) [3] lease ms [4] offset TTL ms
-- Returns: the offset in force (never lower than before) when the lease is held, else -1 (nothing written)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local offset = math.max(tonumber(ARGV[2]), tonumber(redis.call('GET', KEYS[2]) or '0'))
redis.call('SET', KEYS[2], offset, 'PX', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return offset

-- KEYS: [1] version counter of the filter; [2] pointer hash of the filter {active, previous, seq}
-- ARGV: [1] TTL ms of the counter
-- Returns: a version number never used before for this filter (above the counter and above every kept build,
--          so a counter that expired cannot hand out a version again)
local v = redis.call('INCR', KEYS[1])
local floor = math.max(tonumber(redis.call('HGET', KEYS[2], 'active') or '0'), tonumber(redis.call('HGET', KEYS[2], 'previous') or '0'))
if v <= floor then
  v = floor + 1
  redis.call('SET', KEYS[1], v)
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return v

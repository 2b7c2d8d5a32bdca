-- KEYS: [1] pointer hash of the filter {active, previous, seq}; [2..5] bits and info of the two builds (TTL refreshed)
-- ARGV: [1] expected active version; [2] expected previous version; [3] TTL ms; [4] pub/sub channel; [5] filter name
-- Returns: {1, ''} when previous became active and active previous;
--          {0, active, previous, seq} when the pointer is not as expected (nothing written)
local active = redis.call('HGET', KEYS[1], 'active') or ''
local previous = redis.call('HGET', KEYS[1], 'previous') or ''
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if active ~= ARGV[1] or previous ~= ARGV[2] then
  return {0, active, previous, seq}
end
redis.call('HSET', KEYS[1], 'active', previous, 'previous', active)
for i = 1, #KEYS do
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
redis.call('PUBLISH', ARGV[4], '{"type":"activated","filter":"' .. ARGV[5] .. '","version":' .. previous .. ',"seq":' .. seq .. '}')
return {1, ''}

-- KEYS: [1] pointer hash of the filter {active, previous, seq}; [2] add log (list);
--       [3] bits of the caller's active build (absent while the filter has no build yet: the batch is then
--       only logged and announced, for the first build to replay); [4] bits of the caller's previous build (when it has one)
-- ARGV: [1] caller's active version; [2] caller's previous version ('' = none); [3] bits before the bit array (header);
--       [4] n = number of positions for the active build; [5] TTL ms of the bits, pointer and log; [6] log length kept;
--       [7] pub/sub channel; [8] filter name; [9] epoch ms of the add; [10] keys of the batch as a JSON array;
--       [11 .. 10+n] positions in the active build; [11+n ..] positions in the previous build
-- Returns: {1, seq} when the bits were set, the batch logged and announced;
--          {0, active, previous, seq} when the caller's builds are no longer active/previous or their bits
--          are gone (nothing written: SETBIT on a missing key would start an empty filter)
local active = redis.call('HGET', KEYS[1], 'active') or ''
local previous = redis.call('HGET', KEYS[1], 'previous') or ''
if active ~= ARGV[1] or previous ~= ARGV[2] or (#KEYS > 2 and redis.call('EXISTS', KEYS[3]) == 0) or (#KEYS > 3 and redis.call('EXISTS', KEYS[4]) == 0) then
  return {0, active, previous, tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')}
end
local header = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
for i = 11, 10 + n do
  redis.call('SETBIT', KEYS[3], header + tonumber(ARGV[i]), 1)
end
if #ARGV > 10 + n then
  for i = 11 + n, #ARGV do
    redis.call('SETBIT', KEYS[4], header + tonumber(ARGV[i]), 1)
  end
end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('RPUSH', KEYS[2], '{"seq":' .. seq .. ',"at":' .. ARGV[9] .. ',"keys":' .. ARGV[10] .. '}')
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[6]), -1)
for i = 1, #KEYS do
  redis.call('PEXPIRE', KEYS[i], ARGV[5])
end
redis.call('PUBLISH', ARGV[7], '{"type":"added","filter":"' .. ARGV[8] .. '","seq":' .. seq .. ',"keys":' .. ARGV[10] .. '}')
return {1, seq}

-- KEYS: [1] lock key
-- ARGV: [1] owner token
-- Returns: 1 when the lock was held by the owner and is released, 0 otherwise (someone else's lock is left alone)
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0

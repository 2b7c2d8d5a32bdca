-- Claims a nonce for a request signed with a session key, unless the key is denied: one round trip.
-- KEYS: [1] nonce key  nonce:{<env>:<service>}:<appId>:<nonce>
--       [2] deny key   skdeny:{<env>:<service>}:<session key id>  (same hash tag: same Cluster slot)
-- ARGV: [1] nonce TTL in milliseconds
-- Returns: 2 when the key is denied (nothing is written), 1 when the nonce was fresh and is now claimed, 0 on a replay
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 2
end
if redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') then
  return 1
end
return 0

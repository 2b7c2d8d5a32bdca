-- Settles token reservations (lib/kind_tokens.lua) when answers have ended: each reservation is given back and what
-- the upstream reported is charged instead, in the window the reservation went to only (a window that is over took
-- its reservation with it). Several requests' settlements may share one call (same hash slot). The same call records
-- the answers' usage (docs/quotas.md#usage-and-spend): per usage bucket hash, HINCRBY of `<model>:p|c|s` (prompt,
-- completion tokens, spend in micro-dollars); a hash holding ARGV[2] models already counts a new one as `other`.
-- KEYS: [1..n] token budget keys, then [n+1..] usage bucket keys
-- ARGV: [1] n, [2] most models per usage hash; then per budget key i, at 2+3(i-1): reserved tokens, used tokens, end
--       of the reservation's window (µs); then per usage key j, at 2+3n+5(j-1): model, prompt tokens, completion
--       tokens, spend (micro-dollars), TTL (ms)
-- Returns: number of budget keys settled (a key whose window ended or expired is left alone). Budget TTLs are kept.
local n = tonumber(ARGV[1])
local most = tonumber(ARGV[2]) * 3
local done = 0
for i = 1, n do
  local b = 2 + (i - 1) * 3
  local h = redis.call('HMGET', KEYS[i], 'c', 'e')
  local c = tonumber(h[1])
  if c and tonumber(h[2]) == tonumber(ARGV[b + 3]) then
    local left = math.max(0, c - tonumber(ARGV[b + 1]) + tonumber(ARGV[b + 2]))
    redis.call('HSET', KEYS[i], 'c', string.format('%d', left))
    done = done + 1
  end
end
for j = n + 1, #KEYS do
  local b = 2 + 3 * n + 5 * (j - n - 1)
  local k = KEYS[j]
  local m = ARGV[b + 1]
  if redis.call('HEXISTS', k, m .. ':p') == 0 and redis.call('HLEN', k) >= most then m = 'other' end
  redis.call('HINCRBY', k, m .. ':p', ARGV[b + 2])
  redis.call('HINCRBY', k, m .. ':c', ARGV[b + 3])
  redis.call('HINCRBY', k, m .. ':s', ARGV[b + 4])
  redis.call('PEXPIRE', k, ARGV[b + 5])
end
return done

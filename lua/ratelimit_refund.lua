-- Gives back what ratelimit_decide charged in one slot, when a later slot of the same request refused
-- (Redis Cluster rules whose keys cannot share a slot: reserve, then refund).
-- KEYS: [1..n] bucket keys that were charged
-- ARGV: [1] app clock, epoch µs [2] clock 'r' | 'a'
--   then per key i, at 2 + 3(i-1): kind 'g' | 't' | 'f' | 'c', charged (µs of TAT for 'g', the lease id for 'c',
--   tokens otherwise), capacity (tokens)
-- Returns: number of keys refunded. TTLs are kept (a refund only shortens the time to full);
--   a GCRA time never goes below now. Each kind's refund is in its lib/kind_<name>.lua.
-- Includes: lib/clock.lua lib/kinds.lua lib/kind_*.lua
local done = 0
for i = 1, #KEYS do
  local b = 2 + (i - 1) * 3
  local kd = KINDS[ARGV[b + 1]]
  if kd.lease then
    done = done + kd.refund(KEYS[i], ARGV[b + 2])
  else
    done = done + kd.refund(KEYS[i], tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]))
  end
end
return done

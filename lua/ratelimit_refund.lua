-- Gives back what ratelimit_decide charged in one slot, when a later slot of the same request refused
-- (Redis Cluster rules whose keys cannot share a slot: reserve, then refund).
-- KEYS: [1..n] bucket keys that were charged
-- ARGV: [1] app clock, epoch µs [2] clock 'r' | 'a'
--   then per key i, at 2 + 3(i-1): kind 'g' | 't' | 'f', charged (µs of TAT for 'g', tokens otherwise), capacity (tokens)
-- Returns: number of keys refunded. TTLs are kept (a refund only shortens the time to full);
--   a GCRA time never goes below now.
local now
if ARGV[2] == 'r' then
  local ok, t = pcall(redis.call, 'TIME')
  if ok then now = tonumber(t[1]) * 1000000 + tonumber(t[2]) else now = tonumber(ARGV[1]) end
else
  now = tonumber(ARGV[1])
end
local done = 0
for i = 1, #KEYS do
  local b = 2 + (i - 1) * 3
  local kind, charged, cap = ARGV[b + 1], tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
  if kind == 'g' then
    local tat = tonumber(redis.call('GET', KEYS[i]))
    if tat then
      local nt = tat - charged
      if nt > now then
        redis.call('SET', KEYS[i], string.format('%.17g', nt), 'PX', math.ceil((nt - now) / 1000) + 1000)
      else
        redis.call('DEL', KEYS[i])
      end
      done = done + 1
    end
  elseif kind == 't' then
    local t = tonumber(redis.call('HGET', KEYS[i], 't'))
    if t then
      redis.call('HSET', KEYS[i], 't', string.format('%.17g', math.min(cap, t + charged)))
      done = done + 1
    end
  else
    local c = tonumber(redis.call('HGET', KEYS[i], 'c'))
    if c then
      redis.call('HSET', KEYS[i], 'c', math.max(0, c - charged))
      done = done + 1
    end
  end
end
return done

-- Makes due now the lanes of one queue partition whose head job waits for one bot (its cooldown was lifted early).
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] bot id [3] now, epoch ms [4] most lanes to look at per priority
-- Returns: how many lanes were made due
-- Only lanes due later than now, not held, whose head is `waiting` (cooldown, backoff) and was last tried by the
-- bot: a lane waiting for another bot, for its not_before or held by a worker is left as it is.
local P, bot, now, max = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local LEASE = P .. ':lease'
local woken = 0
for _, p in ipairs({ 'h', 'n', 'l' }) do
  local dk = P .. ':d:' .. p
  local lanes = redis.call('ZRANGEBYSCORE', dk, '(' .. now, '+inf', 'LIMIT', 0, max)
  for _, lane in ipairs(lanes) do
    local head = redis.call('LINDEX', P .. ':l:' .. lane, 0)
    if head and redis.call('HEXISTS', LEASE, lane) == 0 then
      local jk = P .. ':j:' .. head
      local j = redis.call('HMGET', jk, 'state', 'bot')
      if j[1] == 'waiting' and j[2] == bot then
        redis.call('ZADD', dk, now, lane)
        redis.call('HSET', jk, 'wait', now)
        woken = woken + 1
      end
    end
  end
end
return woken

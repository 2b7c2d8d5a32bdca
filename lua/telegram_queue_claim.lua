-- Claims due lanes of one queue partition for a worker: high priority first, then normal, then low.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] now, epoch ms [3] lease ms [4] most lanes to claim [5] lease token prefix (unique per call)
--   [6] `h` to claim high-priority lanes only (the store's first pass over every partition), else every priority
--   [7] optional: claim only lanes due at or before this ms (a worker taking lanes from another's partition
--   takes only those that waited there past its bound; default now)
-- Returns: { next due ms (-1 = no lane waits), then per claimed lane { lane, token, reclaimed 1|0, job hash as
--   HGETALL, the lane's due score before the claim: its place in line, kept by a put-back for full bots } }.
--   A reclaimed head's job keeps, in its field `lost`, the leases that ended without a settle
--   ("<token>@<lease end ms>", space-separated, oldest first; a settle clears it). A claimed lane's due score
--   becomes now + lease: a worker that dies leaves it to be claimed again when that passes ("reclaimed" when its
--   head was being sent). A head whose priority moved (collapse) moves its lane to that priority's set; a head
--   with a later not_before pushes the lane's score to it.
local P, now, leaseMs, max, tp = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local LANES, LEASE = KEYS[1], P .. ':lease'
local out, got = { -1 }, 0
local levels = ARGV[6] == 'h' and { 'h' } or { 'h', 'n', 'l' }
local upto = math.min(now, tonumber(ARGV[7] or now) or now)
for _, p in ipairs(levels) do
  local dk = P .. ':d:' .. p
  if got < max then
    local lanes = redis.call('ZRANGEBYSCORE', dk, '-inf', upto, 'LIMIT', 0, (max - got) * 2 + 8)
    for _, lane in ipairs(lanes) do
      if got < max then
        local lk = P .. ':l:' .. lane
        local head = redis.call('LINDEX', lk, 0)
        if not head then
          redis.call('ZREM', dk, lane)
          redis.call('HDEL', LANES, lane)
          redis.call('HDEL', LEASE, lane)
        else
          local jk = P .. ':j:' .. head
          local j = redis.call('HMGET', jk, 'prio', 'nb', 'state')
          local nb = tonumber(j[2]) or 0
          if j[1] and j[1] ~= p then
            redis.call('ZREM', dk, lane)
            redis.call('ZADD', P .. ':d:' .. j[1], math.max(now, nb), lane)
            redis.call('HSET', LANES, lane, j[1])
          elseif nb > now then
            redis.call('ZADD', dk, nb, lane)
          else
            local old = redis.call('HGET', LEASE, lane)
            local reclaimed = (old and j[3] == 'sending') and 1 or 0
            if reclaimed == 1 then
              local lost = redis.call('HGET', jk, 'lost')
              local entry = old .. '@' .. (redis.call('ZSCORE', dk, lane) or '0')
              redis.call('HSET', jk, 'lost', (lost and lost ~= '') and (lost .. ' ' .. entry) or entry)
            end
            local place = redis.call('ZSCORE', dk, lane)
            got = got + 1
            local tok = tp .. ':' .. got
            redis.call('HSET', LEASE, lane, tok)
            redis.call('ZADD', dk, now + leaseMs, lane)
            redis.call('HSET', jk, 'state', 'sending')
            out[#out + 1] = { lane, tok, reclaimed, redis.call('HGETALL', jk), place }
          end
        end
      end
    end
  end
end
for _, p in ipairs({ 'h', 'n', 'l' }) do
  local f = redis.call('ZRANGE', P .. ':d:' .. p, 0, 0, 'WITHSCORES')
  if f[2] then
    local s = tonumber(f[2])
    if out[1] == -1 or s < out[1] then out[1] = s end
  end
end
return out

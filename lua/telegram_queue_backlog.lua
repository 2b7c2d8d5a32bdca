-- Backlog of one queue partition, by queue (a lane's scope, or `bot=<id>` for a pinned bot): for the admin API.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] most lanes to read (the answer says when more were left unread)
-- Returns: { truncated 1|0, then per queue { queue, jobs, lanes, oldest due ms } } where a job is due at
--   max(created, not_before) and "oldest due" is the earliest of the lanes' head jobs. Chats are never named.
local P, max = ARGV[1], tonumber(ARGV[2])
local groups, order = {}, {}
local cursor, seen, truncated = '0', 0, 0
repeat
  local r = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', 200)
  cursor = r[1]
  local kv = r[2]
  for i = 1, #kv, 2 do
    if seen >= max then
      truncated = 1
    else
      seen = seen + 1
      local lane = kv[i]
      local q = string.match(lane, '^(.*)|[^|]*$') or lane
      local lk = P .. ':l:' .. lane
      local n = redis.call('LLEN', lk)
      if n > 0 then
        local head = redis.call('LINDEX', lk, 0)
        local h = redis.call('HMGET', P .. ':j:' .. head, 'created', 'nb')
        local due = math.max(tonumber(h[1]) or 0, tonumber(h[2]) or 0)
        local g = groups[q]
        if not g then
          g = { q, 0, 0, due }
          groups[q] = g
          order[#order + 1] = q
        end
        g[2] = g[2] + n
        g[3] = g[3] + 1
        if due < g[4] then g[4] = due end
      end
    end
  end
until cursor == '0' or truncated == 1
local out = { truncated }
for _, q in ipairs(order) do out[#out + 1] = groups[q] end
return out

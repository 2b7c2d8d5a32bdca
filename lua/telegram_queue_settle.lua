-- Settles the head job of a claimed lane of one queue partition: sent, dead, or waiting at the head of its lane.
-- KEYS: [1] the partition's lanes hash `<prefix>:lanes`
-- ARGV: [1] prefix [2] lane [3] lease token [4] job id [5] now, epoch ms [6] kind: sent | dead | wait
--   [7] retention ms [8] wait: until ms; sent / dead: earliest time the lane's next job may be tried (ms)
--   [9..] job fields to set, as name, value pairs
-- Returns: 1 settled; 0 the lease was lost (it expired and the lane was claimed again): nothing changes
-- wait: the job stays first in its lane (keeps its place) and the lane is due at `until`. sent / dead: the job
-- leaves the lane and is kept for the retention (its id stays known); dead ones go to `<prefix>:dead` (scored by
-- time, trimmed to the retention); the lane is due again from its next job's not_before (or ARGV[8]).
local P, lane, tok, id, now, kind = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]
local keep, at = tonumber(ARGV[7]), tonumber(ARGV[8])
local LANES, LEASE = KEYS[1], P .. ':lease'
local lk, jk = P .. ':l:' .. lane, P .. ':j:' .. id
if redis.call('HGET', LEASE, lane) ~= tok or redis.call('LINDEX', lk, 0) ~= id then return 0 end
redis.call('HDEL', LEASE, lane)
if #ARGV > 8 then redis.call('HSET', jk, unpack(ARGV, 9)) end
local prio = redis.call('HGET', LANES, lane) or 'n'
if kind == 'wait' then
  redis.call('ZADD', P .. ':d:' .. prio, at, lane)
  return 1
end
redis.call('LPOP', lk)
redis.call('DECR', P .. ':count')
redis.call('PEXPIRE', jk, keep)
if kind == 'dead' then
  redis.call('ZADD', P .. ':dead', now, id)
  redis.call('ZREMRANGEBYSCORE', P .. ':dead', '-inf', now - keep)
end
local ck = redis.call('HGET', jk, 'ck')
if ck and ck ~= '' then
  local ckk = P .. ':c:' .. lane .. '\n' .. ck
  if redis.call('GET', ckk) == id then redis.call('DEL', ckk) end
end
redis.call('ZREM', P .. ':d:' .. prio, lane)
local nxt = redis.call('LINDEX', lk, 0)
if nxt then
  local j = redis.call('HMGET', P .. ':j:' .. nxt, 'prio', 'nb')
  local np = j[1] or 'n'
  redis.call('ZADD', P .. ':d:' .. np, math.max(tonumber(j[2]) or 0, at), lane)
  redis.call('HSET', LANES, lane, np)
else
  redis.call('HDEL', LANES, lane)
end
return 1

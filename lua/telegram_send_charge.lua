-- Decides one Telegram send of one bot in ONE atomic call: the bot's registry state, its cooldown, the bot × chat
-- cooldown and reachability, then the bot, bot × method and bot × chat GCRA buckets (charged all or none), and
-- marks the send in flight. Same GCRA arithmetic as the rate-limit lock (TAT per key); clock: Redis TIME (µs).
-- KEYS: (all under the bot's hash tag `tgo:{<env>:<service>:bot:<id>}`) [1] status hash [2] bot × chat cooldown
--   [3] bot × chat unreachable mark [4] bot bucket [5] bot × method bucket [6] bot × chat bucket [7] in-flight zset
-- ARGV: [1] bot interval µs per token [2] bot tolerance µs (burst × interval) [3] method interval (0 = no method
--   bucket) [4] method tolerance [5] chat interval [6] chat tolerance [7] weight (tokens from the bot and method
--   buckets; the chat bucket takes 1) [8] send id [9] in-flight mark lifetime ms
-- Returns: { 'ok', token generation, ms until the chat takes its next message } |
--   { 'wait', ms, 'cooldown' | 'chat_cooldown' | 'rotating' } | { 'wait', ms, 'bucket', 'bot' | 'method' | 'chat' (the
--   bucket with the longest wait) } (nothing charged) |
--   { 'refused', 'disabled' | 'revoked' | 'unreachable' }
-- Cooldown ends and times in the status hash are epoch ms; bucket TATs µs, each key with a TTL of its full refill
-- time + 1 s; in-flight marks are scored by their expiry (ms), so a crashed worker's marks lapse by themselves.
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local nowMs = math.floor(now / 1000)
local s = redis.call('HMGET', KEYS[1], 'state', 'until', 'gen', 'rot')
local state, gen = s[1] or 'active', tonumber(s[3] or '0')
if state == 'disabled' or state == 'revoked' then return { 'refused', state } end
if redis.call('EXISTS', KEYS[3]) == 1 then return { 'refused', 'unreachable' } end
if s[4] == '1' then return { 'wait', 50, 'rotating' } end
if state == 'cooldown' and tonumber(s[2]) > nowMs then return { 'wait', tonumber(s[2]) - nowMs, 'cooldown' } end
local cc = tonumber(redis.call('GET', KEYS[2]) or '0')
if cc > nowMs then return { 'wait', cc - nowMs, 'chat_cooldown' } end
local w = tonumber(ARGV[7])
local spec = { { 4, 1, w }, { 5, 3, w }, { 6, 5, 1 } }
local tats = redis.call('MGET', KEYS[4], KEYS[5], KEYS[6])
local wait, new, which = 0, {}, 0
local NAMES = { 'bot', 'method', 'chat' }
for i = 1, 3 do
  local T, tau, cost = tonumber(ARGV[spec[i][2]]), tonumber(ARGV[spec[i][2] + 1]), spec[i][3]
  if T > 0 then
    local base = math.max(tonumber(tats[i]) or now, now)
    local nxt = base + cost * T
    local w = 0
    if nxt - now <= tau + 1e-3 then new[i] = nxt
    elseif cost * T > tau then w = math.max(base - now, 1000)
    else w = nxt - tau - now end
    if w > wait then wait, which = w, i end
  end
end
if wait > 0 then return { 'wait', math.ceil(wait / 1000), 'bucket', NAMES[which] } end
for i = 1, 3 do
  if new[i] then
    local tau = tonumber(ARGV[spec[i][2] + 1])
    redis.call('PSETEX', KEYS[spec[i][1]], math.ceil(tau / 1000) + 1000, string.format('%.17g', new[i]))
  end
end
local ct, ctau = tonumber(ARGV[5]), tonumber(ARGV[6])
local ms = tonumber(ARGV[9])
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', nowMs)
redis.call('ZADD', KEYS[7], nowMs + ms, ARGV[8])
redis.call('PEXPIRE', KEYS[7], ms * 2)
return { 'ok', gen, math.max(0, math.ceil((new[3] + ct - ctau - now) / 1000)) }

-- Decides one Telegram send of one bot in ONE atomic call: the bot's registry state, its cooldown, the bot × chat
-- cooldown and reachability, then reserves the earliest slot that fits the bot, bot × method and bot × chat GCRA
-- buckets (charged all or none; a send of cost c fits at TAT + (c − burst)·T, and moves TAT to max(TAT, slot) + c·T),
-- if it is at most ARGV[10] ms ahead, and marks the send in flight. The bot bucket's interval follows the bot's
-- adaptive rate (AIMD, fields `ar` / `af` of the status hash, set by lua/telegram_cooldown.lua): `ar` + ARGV[11] ×
-- seconds since `af`, up to the bucket's rate. Mirrors gate/gcra.ts and gate/aimd.ts; clock: Redis TIME (µs).
-- KEYS: (all under the bot's hash tag `tgo:{<env>:<service>:bot:<id>}`) [1] status hash [2] bot × chat cooldown
--   [3] bot × chat unreachable mark [4] bot bucket [5] bot × method bucket [6] bot × chat bucket [7] in-flight zset
-- ARGV: [1] bot interval µs per token [2] bot tolerance µs (burst × interval) [3] method interval (0 = no method
--   bucket) [4] method tolerance [5] chat interval [6] chat tolerance [7] weight (tokens from the bot and method
--   buckets; the chat bucket takes 1) [8] send id [9] in-flight mark lifetime ms [10] ms a slot may be ahead
--   [11] msg/s the adaptive rate regains per second (0: the bot's rate is fixed). A bot with no bucket state (new,
--   or idle past its TTL) starts at its rate in force: smooth from its first send, one interval apart, no burst
-- Returns: { 'ok', token generation, ms until the chat takes its next message, ms until the reserved slot } |
--   { 'wait', ms, 'cooldown' | 'chat_cooldown' | 'rotating' } | { 'wait', ms, 'bucket', 'bot' | 'method' | 'chat' (the
--   bucket with the longest wait; ms until its slot would be within ARGV[10]) } (nothing charged) |
--   { 'refused', 'disabled' | 'revoked' | 'unreachable' }
-- Cooldown ends and times in the status hash are epoch ms; bucket TATs µs, each key with a TTL of its full refill
-- time + 1 s; in-flight marks are scored by their expiry (ms), so a crashed worker's marks lapse by themselves.
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local nowMs = math.floor(now / 1000)
local s = redis.call('HMGET', KEYS[1], 'state', 'until', 'gen', 'rot', 'ar', 'af')
local state, gen = s[1] or 'active', tonumber(s[3] or '0')
if state == 'disabled' or state == 'revoked' then return { 'refused', state } end
if redis.call('EXISTS', KEYS[3]) == 1 then return { 'refused', 'unreachable' } end
if s[4] == '1' then return { 'wait', 50, 'rotating' } end
if state == 'cooldown' and tonumber(s[2]) > nowMs then return { 'wait', tonumber(s[2]) - nowMs, 'cooldown' } end
local cc = tonumber(redis.call('GET', KEYS[2]) or '0')
if cc > nowMs then return { 'wait', cc - nowMs, 'chat_cooldown' } end
local w = tonumber(ARGV[7])
local spec = { { 4, 1, w }, { 5, 3, w }, { 6, 5, 1 } }
local Ts = { tonumber(ARGV[1]), tonumber(ARGV[3]), tonumber(ARGV[5]) }
local tats = redis.call('MGET', KEYS[4], KEYS[5], KEYS[6])
local cap = Ts[1] > 0 and 1000000 / Ts[1] or 0
if s[5] and tonumber(ARGV[11]) > 0 and Ts[1] > 0 then
  local rate = tonumber(s[5]) + tonumber(ARGV[11]) * math.max(0, nowMs - tonumber(s[6])) / 1000
  if rate < cap then Ts[1] = 1000000 / rate end
end
local slot, which = now, 0
local NAMES = { 'bot', 'method', 'chat' }
for i = 1, 3 do
  local T0, tau = tonumber(ARGV[spec[i][2]]), tonumber(ARGV[spec[i][2] + 1])
  if T0 > 0 and tats[i] then
    local burst = tau / T0
    local at = tonumber(tats[i]) + (spec[i][3] - burst) * Ts[i]
    if at > slot then slot, which = at, i end
  end
end
local ahead = tonumber(ARGV[10]) * 1000
if slot - now > ahead + 1 then
  return { 'wait', math.max(1, math.ceil((slot - now - ahead) / 1000)), 'bucket', NAMES[which] }
end
local chatTat = slot
for i = 1, 3 do
  if Ts[i] > 0 then
    local tau = tonumber(ARGV[spec[i][2] + 1])
    local tat = math.max(tonumber(tats[i]) or slot, slot) + spec[i][3] * Ts[i]
    if i == 3 then chatTat = tat end
    redis.call('PSETEX', KEYS[spec[i][1]], math.ceil((tat - now + tau) / 1000) + 1000, string.format('%.17g', tat))
  end
end
local ct, ctau = tonumber(ARGV[5]), tonumber(ARGV[6])
local ms = tonumber(ARGV[9])
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', nowMs)
redis.call('ZADD', KEYS[7], nowMs + ms, ARGV[8])
redis.call('PEXPIRE', KEYS[7], ms * 2)
return { 'ok', gen, math.max(0, math.ceil((chatTat + ct - ctau - now) / 1000)), math.ceil((slot - now) / 1000) }

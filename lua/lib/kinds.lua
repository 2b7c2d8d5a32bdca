-- Defines KINDS: per rule-kind code, how a bucket of that kind is kept, measured, decided, written and refunded,
-- as src/locks/rate-limit/core/kinds/<kind>.ts does (same operations, same order). One file lib/kind_<name>.lua
-- a kind fills KINDS[code] with (needs `now` from lib/clock.lua):
--   fields: nil for a string value (read with the other strings in one MGET), or the hash fields { a, b } (HMGET)
--   scales: true when multipliers scale the interval too (false: the count only, as for a window)
--   used(v, x, cap, T): fill fraction before this request; v, x the stored values (nil when absent)
--   decide(v, x, c, t, q, w): c capacity and t interval at the multiplier, q cost, w the wait µs of a paced bucket
--     (0 = none; kinds that cannot pace ignore it); returns ok, the value to write and its second field (hash
--     kinds) when ok, else the retry-after ms
--   write(key, w, x, ttl): stores a charge with the key's TTL ms
--   refund(key, charged, cap): gives a charge back (ratelimit_refund.lua); 1 when the key was there, else 0
--   lease: true for a kind of leases (concurrency): read(key) replaces HMGET (its two values, false when absent),
--     write gets the request's lease id as a fifth argument, and refund(key, lease id) gives that lease back
local EPS = 1e-9
local KINDS = {}

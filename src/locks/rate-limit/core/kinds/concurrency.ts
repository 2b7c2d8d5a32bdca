import { parseDuration } from '../rate-parse.js';
import {
  EPS,
  type OneOutcome,
  type RuleKind,
  type Stored,
  replyNumber,
} from '../rule-kind.types.js';

/** Longest lease of a concurrency rule: a slot a dead instance held comes back within it. */
export const MAX_LEASE_MS = 86_400_000;
/** Default lease: longer than the longest answer the shipped policies stream (inference `maxDurationMs`). */
export const DEFAULT_LEASE_MS = 600_000;
/** Longest Retry-After of a refusal: a slot is freed as soon as an answer ends, which no clock predicts. */
export const CONCURRENCY_RETRY_MS = 1_000;

/**
 * The live leases of a key before this request: how many, and when the first expires (µs). The script prunes the
 * expired ones and replies with these two numbers (the fields `n` and `e`); the memory store keeps the leases
 * themselves (lease id → expiry µs) and counts them here, so both stores decide on the same figures.
 */
function live(v: Stored | undefined, now: number): { n: number; first?: number } {
  if (v === undefined || typeof v === 'number') return { n: 0 };
  if (REPLY in v) return { n: v[REPLY]!, first: v.e };
  let n = 0;
  let first: number | undefined;
  for (const id in v) {
    const exp = v[id]!;
    if (exp <= now) continue;
    n++;
    if (first === undefined || exp < first) first = exp;
  }
  return { n, first };
}

/** The outcome of a request that takes a lease, with n live before it. */
const admitted = (c: number, n: number, limit: number): OneOutcome['o'] => ({
  allowed: true,
  remaining: Math.floor(c - n - 1 + EPS),
  retryAfterMs: 0,
  resetMs: 0,
  limit,
  charged: 1,
});

/** The count field of a script reply (never a lease id: those are 12+ characters of base64url). */
const REPLY = '#n';

/**
 * Concurrency leases (like APISIX `limit-conn`): at most `capacity` requests of one subject in flight. A request
 * takes a lease (a random id in a sorted set, scored by its expiry) in the decision, and gives it back when its
 * answer ends or its client goes away (`RateLimitStore.release`); a lease nobody gives back (a dead instance, a
 * lost release) expires after `lease`. One lease per request whatever its cost; multipliers scale the count only,
 * never below one. lua/lib/kind_concurrency.lua.
 */
export const concurrency = {
  code: 'c',
  algorithm: 'concurrency',
  fields: ['n', 'e'],
  scalesInterval: false,
  leased: true,
  options: ['lease'],
  fromReply: ([n, e]): Stored => {
    const count = replyNumber(n) ?? 0;
    const first = replyNumber(e);
    return first === undefined ? { [REPLY]: count } : { [REPLY]: count, e: first };
  },
  used: (b, v, now) => live(v, now).n / b.capacity,
  refillUs: (b) => b.intervalUs,
  decide(b, v, { cap }, now) {
    const c = Math.max(1, cap);
    const limit = Math.floor(c + EPS);
    const { n, first } = live(v, now);
    if (n + 1 <= c + EPS) {
      // A script's reply (the batch replay): what the next request reads is one more lease, the first expiring first.
      if (v !== undefined && typeof v !== 'number' && REPLY in v) {
        const exp = now + b.intervalUs;
        return {
          o: admitted(c, n, limit),
          value: { [REPLY]: n + 1, e: Math.min(first ?? exp, exp) },
        };
      }
      const leases: Record<string, number> = {};
      if (v !== undefined && typeof v !== 'number' && !(REPLY in v))
        for (const id in v) if (v[id]! > now) leases[id] = v[id]!;
      leases[b.leaseId ?? ''] = now + b.intervalUs;
      return { o: admitted(c, n, limit), value: leases };
    }
    const toFirst = first === undefined ? CONCURRENCY_RETRY_MS : Math.ceil((first - now) / 1000);
    const retry = Math.max(1, Math.min(CONCURRENCY_RETRY_MS, toFirst));
    return {
      o: { allowed: false, remaining: 0, retryAfterMs: retry, resetMs: retry, limit, charged: 0 },
    };
  },
  validate(rule, path) {
    if (rule.lease === undefined) return [];
    const ms = parseDuration(rule.lease);
    return ms === undefined || ms < 1000 || ms > MAX_LEASE_MS
      ? [
          `${path}.lease: must be a duration from 1s to 1d (how long a lease lives if never given back)`,
        ]
      : [];
  },
} as const satisfies RuleKind;

/** A key's leases less one (memory store): undefined when none is left. */
export function withoutLease(v: Stored | undefined, id: string): Stored | undefined {
  if (v === undefined || typeof v === 'number' || !(id in v)) return v;
  const rest: Record<string, number> = { ...v };
  delete rest[id];
  return Object.keys(rest).length === 0 ? undefined : rest;
}

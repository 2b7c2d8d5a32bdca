import type { BucketOutcome } from '../decision.types.js';
import { EPS, type RuleKind, replyNumber } from '../rule-kind.types.js';

/** Stored state: tokens left and the time (µs) they were counted, the hash fields `t` and `ts`. */
type Tokens = {
  t: number;
  ts: number;
};

/**
 * The classic token bucket: tokens plus the time they were counted, in a Redis hash; paced (`maxWaitMs`), the
 * tokens may go below zero by the wait's refill. lua/lib/kind_token_bucket.lua.
 */
export const tokenBucket = {
  code: 't',
  algorithm: 'token-bucket',
  fields: ['t', 'ts'],
  scalesInterval: true,
  fromReply: ([t, ts]) => {
    const n = replyNumber(t);
    return n === undefined ? undefined : { t: n, ts: Number(ts) };
  },
  used(b, v, now) {
    if (v === undefined) return 0;
    const s = v as Tokens;
    return 1 - Math.min(b.capacity, s.t + Math.max(0, now - s.ts) / b.intervalUs) / b.capacity;
  },
  refillUs: (b) => b.capacity * b.intervalUs,
  paces: true,
  decide(b, v, { cap, T, limit }, now) {
    const s = v as Tokens | undefined;
    const ts = s ? Math.max(s.ts, now) : now;
    const tokens = s ? Math.min(cap, s.t + Math.max(0, now - s.ts) / T) : cap;
    // Paced: up to `owe` tokens may be owed (the wait's refill); the request waits until they are back.
    const owe = (b.maxWaitUs ?? 0) / T;
    if (tokens + owe + EPS >= b.cost) {
      const left = tokens - b.cost;
      const reset = (cap - left) * T;
      const o: BucketOutcome = {
        allowed: true,
        remaining: Math.max(0, Math.floor(left + EPS)),
        retryAfterMs: Math.floor((Math.max(0, b.cost - left - owe) * T) / 1000),
        resetMs: Math.ceil(reset / 1000),
        limit,
        charged: b.cost,
      };
      if (owe > 0) o.waitMs = Math.max(0, Math.ceil(((b.cost - tokens) * T - EPS) / 1000));
      return { o, value: { t: left, ts } };
    }
    const retry =
      b.cost > cap + owe + EPS ? Math.max((cap - tokens) * T, 1e6) : (b.cost - tokens - owe) * T;
    return {
      o: {
        allowed: false,
        remaining: Math.floor(tokens + EPS),
        retryAfterMs: Math.ceil(retry / 1000),
        resetMs: Math.ceil(((cap - tokens) * T) / 1000),
        limit,
        charged: 0,
      },
    };
  },
} as const satisfies RuleKind;

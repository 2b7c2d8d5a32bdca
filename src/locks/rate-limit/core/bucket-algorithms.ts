/**
 * The three bucket algorithms, each deciding one bucket at a multiplier, in
 * the same arithmetic and order as lua/ratelimit_decide.lua. Times are
 * microseconds; stored values are plain numbers.
 */
import type { BucketOutcome, BucketSpec } from './decision.types.js';

/** Stored state of one key: GCRA TAT, token bucket {t, ts}, fixed window {count, expiresAtUs}. */
export type Stored = number | { t: number; ts: number } | { count: number; expiresAtUs: number };

/** One bucket's outcome, and the value to store when charged. */
export interface OneOutcome {
  o: BucketOutcome;
  value?: Stored;
}

const EPS = 1e-9;

/** Fill fraction (0 = empty bucket … 1 = full use) before this request. */
export function used(b: BucketSpec, v: Stored | undefined, now: number): number {
  if (v === undefined) return 0;
  if (b.kind === 'g') return Math.max(0, (v as number) - now) / (b.capacity * b.intervalUs);
  if (b.kind === 't') {
    const s = v as { t: number; ts: number };
    return 1 - Math.min(b.capacity, s.t + Math.max(0, now - s.ts) / b.intervalUs) / b.capacity;
  }
  return (v as { count: number }).count / b.capacity;
}

/** One bucket at multiplier `m`: its outcome, and the value to store when charged. */
export function decideOne(
  b: BucketSpec,
  v: Stored | undefined,
  m: number,
  now: number,
): OneOutcome {
  const cap = b.capacity * m;
  const T = b.intervalUs / (b.kind === 'f' ? 1 : m);
  const limit = Math.floor(cap + EPS);
  if (b.kind === 'g') return gcra(b, v as number | undefined, cap, T, limit, now);
  if (b.kind === 't')
    return tokenBucket(b, v as { t: number; ts: number } | undefined, cap, T, limit, now);
  return fixedWindow(b, v as { count: number; expiresAtUs: number } | undefined, cap, limit, now);
}

/** GCRA: one theoretical arrival time (TAT); tolerance τ = capacity × interval. */
function gcra(
  b: BucketSpec,
  v: number | undefined,
  cap: number,
  T: number,
  limit: number,
  now: number,
): OneOutcome {
  const tau = cap * T;
  const tat = Math.max(v ?? now, now);
  const next = tat + b.cost * T;
  if (next - now <= tau + EPS) {
    const nextWait = Math.max(0, Math.floor((next - now + b.cost * T - tau) / 1000));
    return {
      o: {
        allowed: true,
        remaining: Math.floor((tau - (next - now)) / T + EPS),
        retryAfterMs: nextWait,
        resetMs: Math.ceil((next - now) / 1000),
        limit,
        charged: Math.floor(b.cost * T),
      },
      value: next,
    };
  }
  const retry = b.cost * T > tau + EPS ? Math.max(tat - now, 1e6) : next - tau - now;
  return {
    o: {
      allowed: false,
      remaining: Math.max(0, Math.floor((tau - (tat - now)) / T + EPS)),
      retryAfterMs: Math.ceil(retry / 1000),
      resetMs: Math.ceil((tat - now) / 1000),
      limit,
      charged: 0,
    },
  };
}

/** Token bucket: tokens and the time they were counted. */
function tokenBucket(
  b: BucketSpec,
  s: { t: number; ts: number } | undefined,
  cap: number,
  T: number,
  limit: number,
  now: number,
): OneOutcome {
  const ts = s ? Math.max(s.ts, now) : now;
  const tokens = s ? Math.min(cap, s.t + Math.max(0, now - s.ts) / T) : cap;
  if (tokens + EPS >= b.cost) {
    const left = tokens - b.cost;
    const reset = (cap - left) * T;
    return {
      o: {
        allowed: true,
        remaining: Math.floor(left + EPS),
        retryAfterMs: Math.floor((Math.max(0, b.cost - left) * T) / 1000),
        resetMs: Math.ceil(reset / 1000),
        limit,
        charged: b.cost,
      },
      value: { t: left, ts },
    };
  }
  const retry = b.cost > cap + EPS ? Math.max((cap - tokens) * T, 1e6) : (b.cost - tokens) * T;
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
}

/** Fixed window (the emergency fuse): a count that expires with its window. */
function fixedWindow(
  b: BucketSpec,
  stored: { count: number; expiresAtUs: number } | undefined,
  cap: number,
  limit: number,
  now: number,
): OneOutcome {
  const s = stored && stored.expiresAtUs > now ? stored : undefined;
  const count = s?.count ?? 0;
  const expiresAt = s?.expiresAtUs ?? now + b.intervalUs;
  const left = Math.max(0, Math.ceil((expiresAt - now) / 1000));
  if (count + b.cost <= cap + EPS) {
    return {
      o: {
        allowed: true,
        remaining: Math.floor(cap - count - b.cost + EPS),
        retryAfterMs: count + 2 * b.cost > cap + EPS ? left : 0,
        resetMs: left,
        limit,
        charged: b.cost,
      },
      value: { count: count + b.cost, expiresAtUs: expiresAt },
    };
  }
  return {
    o: {
      allowed: false,
      remaining: Math.max(0, Math.floor(cap - count + EPS)),
      retryAfterMs: Math.max(1, left),
      resetMs: left,
      limit,
      charged: 0,
    },
  };
}

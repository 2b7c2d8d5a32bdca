/**
 * The decision algorithm in TypeScript — the exact mirror of
 * lua/ratelimit_decide.lua (same arithmetic, same order), used by the memory
 * store. Times are microseconds; stored values are plain numbers.
 */
import { BucketOutcome, BucketSpec, Decision, DecideRequest, TTL_MARGIN_MS, bucketTtlMs } from './rate-limit.store.js';

/** Stored state of one key: GCRA TAT, token bucket {t, ts}, fixed window {count, expiresAtUs}. */
export type Stored = number | { t: number; ts: number } | { count: number; expiresAtUs: number };

export interface Write {
  key: string;
  value: Stored;
  ttlMs: number;
}

const EPS = 1e-9;

interface Read {
  value?: Stored;
  strikes: number;
  penaltyTat?: number;
  /** Pending strikes were added: the penalty key must be written whatever the decision. */
  penaltyDirty: boolean;
}

/** Adds `k` strikes to a strike TAT, never past `maxStrikes` strikes from now. */
function strike(pt: number | undefined, now: number, k: number, p: NonNullable<BucketSpec['penalty']>): number {
  return Math.min(Math.max(pt ?? now, now) + k * p.decayUs, now + p.maxStrikes * p.decayUs);
}

function multiplier(b: BucketSpec, strikes: number): number {
  if (!b.penalty || strikes < b.penalty.threshold) return 1;
  return Math.max(b.penalty.floor, b.penalty.factor ** (strikes - b.penalty.threshold + 1));
}

/** Fill fraction (0 = empty bucket … 1 = full use) before this request. */
function used(b: BucketSpec, v: Stored | undefined, now: number): number {
  if (v === undefined) return 0;
  if (b.kind === 'g') return Math.max(0, (v as number) - now) / (b.capacity * b.intervalUs);
  if (b.kind === 't') {
    const s = v as { t: number; ts: number };
    return 1 - Math.min(b.capacity, s.t + Math.max(0, now - s.ts) / b.intervalUs) / b.capacity;
  }
  return (v as { count: number }).count / b.capacity;
}

/** Decides every bucket; returns the decision and the writes to apply (none of the charges when refused). */
export function decideBuckets(req: DecideRequest, read: (key: string) => Stored | undefined, now: number): { decision: Decision; writes: Write[] } {
  const reads: Read[] = req.buckets.map((b) => {
    let pt = b.penaltyKey ? (read(b.penaltyKey) as number | undefined) : undefined;
    const dirty = b.penalty !== undefined && b.penaltyKey !== undefined && (b.pendingStrikes ?? 0) > 0;
    if (dirty) pt = strike(pt, now, b.pendingStrikes!, b.penalty!);
    const strikes = pt !== undefined && b.penalty && pt > now ? Math.ceil((pt - now) / b.penalty.decayUs) : 0;
    return { value: read(b.key), strikes, penaltyTat: pt, penaltyDirty: dirty };
  });
  let degraded = req.degradedHint;
  if (req.degradeAt > 0) req.buckets.forEach((b, i) => {
    if (b.soft && used(b, reads[i]!.value, now) >= req.degradeAt) degraded = true;
  });
  const charges: Write[] = [];
  const outcomes: BucketOutcome[] = [];
  let allowed = true;
  let blocker = -1;
  let worst = -1;
  req.buckets.forEach((b, i) => {
    const r = reads[i]!;
    let m = multiplier(b, r.strikes);
    if (degraded && b.degradable) m *= req.degradeFactor;
    const cap = b.capacity * m;
    const T = b.intervalUs / (b.kind === 'f' ? 1 : m);
    let o: BucketOutcome;
    let write: Write | undefined;
    if (b.kind === 'g') {
      const tau = cap * T;
      const tat = Math.max((r.value as number | undefined) ?? now, now);
      const next = tat + b.cost * T;
      if (next - now <= tau + EPS) {
        const nextWait = Math.max(0, Math.floor((next - now + b.cost * T - tau) / 1000));
        o = { allowed: true, remaining: Math.floor((tau - (next - now)) / T + EPS), retryAfterMs: nextWait, resetMs: Math.ceil((next - now) / 1000), limit: Math.floor(cap + EPS), charged: Math.floor(b.cost * T) };
        write = { key: b.key, value: next, ttlMs: bucketTtlMs(b) };
      } else {
        const retry = b.cost * T > tau + EPS ? Math.max(tat - now, 1e6) : next - tau - now;
        o = { allowed: false, remaining: Math.max(0, Math.floor((tau - (tat - now)) / T + EPS)), retryAfterMs: Math.ceil(retry / 1000), resetMs: Math.ceil((tat - now) / 1000), limit: Math.floor(cap + EPS), charged: 0 };
      }
    } else if (b.kind === 't') {
      const s = r.value as { t: number; ts: number } | undefined;
      const ts = s ? Math.max(s.ts, now) : now;
      const tokens = s ? Math.min(cap, s.t + Math.max(0, now - s.ts) / T) : cap;
      if (tokens + EPS >= b.cost) {
        const left = tokens - b.cost;
        const reset = (cap - left) * T;
        o = { allowed: true, remaining: Math.floor(left + EPS), retryAfterMs: Math.floor((Math.max(0, b.cost - left) * T) / 1000), resetMs: Math.ceil(reset / 1000), limit: Math.floor(cap + EPS), charged: b.cost };
        write = { key: b.key, value: { t: left, ts }, ttlMs: bucketTtlMs(b) };
      } else {
        const retry = b.cost > cap + EPS ? Math.max((cap - tokens) * T, 1e6) : (b.cost - tokens) * T;
        o = { allowed: false, remaining: Math.floor(tokens + EPS), retryAfterMs: Math.ceil(retry / 1000), resetMs: Math.ceil(((cap - tokens) * T) / 1000), limit: Math.floor(cap + EPS), charged: 0 };
      }
    } else {
      const stored = r.value as { count: number; expiresAtUs: number } | undefined;
      const s = stored && stored.expiresAtUs > now ? stored : undefined;
      const count = s?.count ?? 0;
      const expiresAt = s?.expiresAtUs ?? now + b.intervalUs;
      const left = Math.max(0, Math.ceil((expiresAt - now) / 1000));
      if (count + b.cost <= cap + EPS) {
        o = { allowed: true, remaining: Math.floor(cap - count - b.cost + EPS), retryAfterMs: count + 2 * b.cost > cap + EPS ? left : 0, resetMs: left, limit: Math.floor(cap + EPS), charged: b.cost };
        write = { key: b.key, value: { count: count + b.cost, expiresAtUs: expiresAt }, ttlMs: bucketTtlMs(b) };
      } else {
        o = { allowed: false, remaining: Math.max(0, Math.floor(cap - count + EPS)), retryAfterMs: Math.max(1, left), resetMs: left, limit: Math.floor(cap + EPS), charged: 0 };
      }
    }
    if (!o.allowed && !b.shadow) {
      allowed = false;
      if (o.retryAfterMs > worst) {
        worst = o.retryAfterMs;
        blocker = i;
      }
    }
    if (write) charges.push(write);
    outcomes.push(o);
  });
  const writes: Write[] = [];
  if (allowed) writes.push(...charges);
  else for (const o of outcomes) o.charged = 0;
  req.buckets.forEach((b, i) => {
    if (!b.penaltyKey || !b.penalty) return;
    const r = reads[i]!;
    const struck = !allowed && !b.shadow && !outcomes[i]!.allowed;
    if (!struck && !r.penaltyDirty) return;
    const pt = struck ? strike(r.penaltyTat, now, 1, b.penalty) : r.penaltyTat!;
    writes.push({ key: b.penaltyKey, value: pt, ttlMs: Math.ceil((pt - now) / 1000) + TTL_MARGIN_MS });
  });
  return { decision: { allowed, blocker, degraded, nowMs: Math.floor(now / 1000), buckets: outcomes }, writes };
}

/**
 * The decision algorithm in TypeScript, in the same arithmetic and order as
 * lua/ratelimit_decide.lua. The memory store decides with it; the Redis store
 * runs it on the state the script read (the script only decides and writes),
 * so both stores take every reported figure from this one function. Times are
 * microseconds; stored values are plain numbers.
 */
import {
  BucketOutcome,
  BucketSpec,
  Decision,
  DecideRequest,
  TTL_MARGIN_MS,
} from './decision.types.js';
import { bucketTtlMs } from './rule-kinds.js';
import type { Stored } from './rule-kind.types.js';
import { decideOne, used } from './rule-kinds.js';
import { requestRisk } from './risk-math.js';
import type { RiskState } from './risk.types.js';

/** What one bucket had before the decision: its stored value and its penalty strike TAT (undefined = absent). */
export interface BucketState {
  value?: Stored;
  penaltyTat?: number;
}

export interface Write {
  key: string;
  value: Stored;
  ttlMs: number;
}

/** Adds `k` strikes to a strike TAT, never past `maxStrikes` strikes from now. */
function strike(
  pt: number | undefined,
  now: number,
  k: number,
  p: NonNullable<BucketSpec['penalty']>,
): number {
  return Math.min(Math.max(pt ?? now, now) + k * p.decayUs, now + p.maxStrikes * p.decayUs);
}

/** The strike TAT in force: the stored one plus the pending strikes (the script adds them the same way). */
function penaltyTat(b: BucketSpec, s: BucketState, now: number): number | undefined {
  return b.penalty && b.penaltyKey && (b.pendingStrikes ?? 0) > 0
    ? strike(s.penaltyTat, now, b.pendingStrikes!, b.penalty)
    : s.penaltyTat;
}

/** factor^(strikes − threshold + 1) as repeated products (no pow: Lua and V8 pow may differ in the last bit). */
function multiplier(b: BucketSpec, pt: number | undefined, now: number): number {
  const p = b.penalty;
  if (!p || pt === undefined || pt <= now) return 1;
  const strikes = Math.ceil((pt - now) / p.decayUs);
  if (strikes < p.threshold) return 1;
  let m = p.factor;
  for (let k = 2; k <= strikes - p.threshold + 1; k++) m *= p.factor;
  return Math.max(p.floor, m);
}

/** Fill fraction (0 = empty bucket … 1 = full use) before this request. */
/**
 * Decides every bucket from the state it had (`state[i]` for `req.buckets[i]`) at `now`. When `writes`
 * is given, the values to store are pushed to it: the charges (only when allowed) and the penalty strikes.
 */
export function decideBuckets(
  req: DecideRequest,
  state: readonly BucketState[],
  now: number,
  writes?: Write[],
  riskStates: readonly (RiskState | undefined)[] = [],
): Decision {
  const { buckets } = req;
  const risk = req.risk
    ? requestRisk(riskStates, now, req.risk.params, req.risk.verified)
    : undefined;
  let degraded = req.degradedHint;
  if (req.degradeAt > 0) {
    for (let i = 0; i < buckets.length; i++)
      if (buckets[i]!.soft && used(buckets[i]!, state[i]!.value, now) >= req.degradeAt)
        degraded = true;
  }
  const outcomes: BucketOutcome[] = new Array<BucketOutcome>(buckets.length);
  const charges: Write[] = [];
  let allowed = true;
  let blocker = -1;
  let worst = -1;
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i]!;
    let m = multiplier(b, penaltyTat(b, state[i]!, now), now);
    if (degraded && b.degradable) m *= req.degradeFactor;
    if (risk && b.risky) m *= risk.multiplier;
    const { o, value } = decideOne(b, state[i]!.value, m, now);
    if (!o.allowed && !b.shadow) {
      allowed = false;
      if (o.retryAfterMs > worst) {
        worst = o.retryAfterMs;
        blocker = i;
      }
    }
    if (writes && value !== undefined) charges.push({ key: b.key, value, ttlMs: bucketTtlMs(b) });
    outcomes[i] = o;
  }
  if (!allowed) for (const o of outcomes) o.charged = 0;
  else if (writes) writes.push(...charges);
  for (let i = 0; i < buckets.length && writes; i++) {
    const b = buckets[i]!;
    if (!b.penaltyKey || !b.penalty) continue;
    const struck = !allowed && !b.shadow && !outcomes[i]!.allowed;
    const dirty = (b.pendingStrikes ?? 0) > 0;
    if (!struck && !dirty) continue;
    const pt0 = penaltyTat(b, state[i]!, now);
    const pt = struck ? strike(pt0, now, 1, b.penalty) : pt0!;
    writes.push({
      key: b.penaltyKey,
      value: pt,
      ttlMs: Math.ceil((pt - now) / 1000) + TTL_MARGIN_MS,
    });
  }
  const d: Decision = {
    allowed,
    blocker,
    degraded,
    nowMs: Math.floor(now / 1000),
    buckets: outcomes,
  };
  if (risk) d.risk = risk;
  return d;
}

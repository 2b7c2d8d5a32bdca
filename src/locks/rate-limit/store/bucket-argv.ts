/**
 * One bucket's ARGV in the decision scripts (lua/ratelimit_decide.lua, ratelimit_decide_batch.lua): its flag
 * bits, the fast-path and hash-kind packings, and the risk block's score parameters and bands.
 */
import type { BucketSpec } from '../core/decision.types.js';
import { bucketTtlMs } from '../core/rule-kinds.js';
import type { Argv } from './redis-store.options.js';
import type { RiskParams } from '../core/risk.types.js';

const FLAG_SHADOW = 1;
const FLAG_SOFT = 2;
const FLAG_DEGRADABLE = 4;
export const FLAG_PENALTY = 8;
export const FLAG_RISKY = 16;
const FLAG_HASH = 32;
export const FLAG_PACED = 64;

/** The flag bits every packing shares: shadow, soft, degradable. */
export function baseFlags(b: BucketSpec): number {
  return (
    (b.shadow ? FLAG_SHADOW : 0) | (b.soft ? FLAG_SOFT : 0) | (b.degradable ? FLAG_DEGRADABLE : 0)
  );
}

/** A paced bucket (`maxWaitMs`): decided on the general path only, with its wait in ARGV. */
export const paced = (b: BucketSpec): boolean => (b.maxWaitUs ?? 0) > 0;

/**
 * A fast-path bucket's ARGV: tolerance and increment µs at multiplier 1, flags (with `risky`: risk-scaled, batch
 * script only), TTL ms to `args`; when the request degrades and the bucket is degradable, tolerance and increment
 * at the degrade factor to `degraded`.
 */
export function pushFastBucket(
  args: Argv,
  b: BucketSpec,
  degrade: boolean,
  factor: number,
  degraded: Argv,
  risky = false,
): void {
  const flags = baseFlags(b) | (risky ? FLAG_RISKY : 0);
  args.push(b.capacity * b.intervalUs, b.cost * b.intervalUs, flags, bucketTtlMs(b));
  if (degrade && b.degradable) {
    const m = 1 * factor;
    const T = b.intervalUs / m;
    degraded.push(b.capacity * m * T, b.cost * T);
  }
}

/**
 * A hash kind's spec in the batch script (concurrency, tokens): tolerance and increment 0, flags with 32, TTL ms,
 * then its kind code, capacity, interval µs, cost and degrade factor (the kind decides in lib/kind_*.lua).
 */
export function pushHashBucket(args: Argv, b: BucketSpec, factor: number): void {
  const flags = baseFlags(b) | (b.risky ? FLAG_RISKY : 0) | FLAG_HASH;
  args.push(0, 0, flags, bucketTtlMs(b), b.kind, b.capacity, b.intervalUs, b.cost, factor);
}

/** The score parameters and bands of a risk block (both decision scripts). */
export function pushRiskParams(args: Argv, p: RiskParams): void {
  args.push(p.unitUs, p.newUs, p.newWeight, p.repPeriodUs, p.repPer, p.repMax);
  args.push(p.bonus, p.ttlMs, p.touchUs, p.addressUs, p.bands.length);
  // The last band's bound is never compared (it takes every higher score).
  for (const b of p.bands) args.push(Number.isFinite(b.below) ? b.below : 0, b.multiplier);
  args.push(p.quietTtlMs);
}

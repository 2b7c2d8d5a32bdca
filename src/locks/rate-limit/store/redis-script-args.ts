/**
 * KEYS and ARGV of the rate-limit scripts (lua/ratelimit_decide.lua,
 * ratelimit_decide_batch.lua, ratelimit_refund.lua), packed in the order
 * each script's header states. Numbers are the doubles bucket-math.ts uses.
 */
import type { Clock } from '../../../common/clock.js';
import { BucketSpec, DecideRequest } from '../core/decision.types.js';
import { bucketTtlMs, isLeased } from '../core/rule-kinds.js';
import { gcraWarm } from '../core/kinds/gcra-warm.js';
import type { Argv } from './redis-store.options.js';
import type { RiskParams } from '../core/risk.types.js';

const FLAG_SHADOW = 1;
const FLAG_SOFT = 2;
const FLAG_DEGRADABLE = 4;
const FLAG_PENALTY = 8;
const FLAG_RISKY = 16;
const FLAG_HASH = 32;
const FLAG_PACED = 64;

/** A paced bucket (`maxWaitMs`): decided on the general path only, with its wait in ARGV. */
export const paced = (b: BucketSpec): boolean => (b.maxWaitUs ?? 0) > 0;

export interface ScriptArgs {
  keys: string[];
  args: Argv;
}

/** The first two ARGV of every script: app time in µs, and `r` (Redis TIME) or `a` (app time). */
export function clockArgs(clock: Clock, mode: 'redis' | 'app'): Argv {
  return [Math.round(clock.now() * 1000), mode === 'redis' ? 'r' : 'a'];
}

/**
 * ARGV of the fast path (GCRA buckets without penalty): tolerance and increment at multiplier 1 and, when the
 * policy degrades, at the degrade factor — the doubles bucket-math.ts computes (capacity × m) × (interval ÷ m).
 */
export function fastArgs(req: DecideRequest, clock: Argv): ScriptArgs & { penalties: number } {
  const degrade = req.degradeAt > 0 || req.degradedHint;
  const keys: string[] = [];
  const args = degrade
    ? [...clock, 'd', req.degradeAt > 0 ? req.degradeAt : 0, req.degradedHint ? '1' : '0']
    : [...clock, 'g'];
  const degraded: number[] = [];
  for (const b of req.buckets) {
    keys.push(b.key);
    pushFastBucket(args, b, degrade, req.degradeFactor, degraded);
  }
  for (const v of degraded) args.push(v);
  pushExtras(req, keys, args);
  return { keys, args, penalties: 0 };
}

/** Both paths of ratelimit_decide end with the claim key and the told keys (KEYS), their TTL and count (ARGV). */
function pushExtras(req: DecideRequest, keys: string[], args: Argv): void {
  if (req.claim) keys.push(req.claim.key);
  if (req.told) for (const k of req.told) keys.push(k);
  args.push(req.claim ? req.claim.ttlMs : 0, req.told ? req.told.length : 0);
}

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
  const flags =
    (b.shadow ? FLAG_SHADOW : 0) |
    (b.soft ? FLAG_SOFT : 0) |
    (b.degradable ? FLAG_DEGRADABLE : 0) |
    (risky ? FLAG_RISKY : 0);
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
  const flags =
    (b.shadow ? FLAG_SHADOW : 0) |
    (b.soft ? FLAG_SOFT : 0) |
    (b.degradable ? FLAG_DEGRADABLE : 0) |
    (b.risky ? FLAG_RISKY : 0) |
    FLAG_HASH;
  args.push(0, 0, flags, bucketTtlMs(b), b.kind, b.capacity, b.intervalUs, b.cost, factor);
}

/**
 * ARGV of the general path: every bucket's parameters, then the penalties, the paced buckets' waits, the warm-up
 * buckets' warm-up µs.
 */
export function generalArgs(req: DecideRequest, clock: Argv): ScriptArgs & { penalties: number } {
  const keys: string[] = [];
  const args = [
    ...clock,
    'x',
    req.degradeAt > 0 ? req.degradeAt : 0,
    req.degradeFactor,
    req.degradedHint ? '1' : '0',
    req.buckets.length,
  ];
  const penalized = req.buckets.filter((b) => b.penaltyKey && b.penalty);
  for (const b of req.buckets) {
    keys.push(b.key);
    const flags =
      (b.shadow ? FLAG_SHADOW : 0) |
      (b.soft ? FLAG_SOFT : 0) |
      (b.degradable ? FLAG_DEGRADABLE : 0) |
      (b.penaltyKey && b.penalty ? FLAG_PENALTY : 0) |
      (b.risky && req.risk ? FLAG_RISKY : 0) |
      (paced(b) ? FLAG_PACED : 0);
    args.push(b.kind, b.capacity, b.intervalUs, b.cost, flags, bucketTtlMs(b));
  }
  for (const b of penalized) {
    keys.push(b.penaltyKey!);
    args.push(
      b.penalty!.threshold,
      b.penalty!.factor,
      b.penalty!.decayUs,
      b.penalty!.floor,
      b.penalty!.maxStrikes,
      b.pendingStrikes ?? 0,
    );
  }
  for (const b of req.buckets) if (paced(b)) args.push(b.maxWaitUs!);
  for (const b of req.buckets) if (b.kind === gcraWarm.code) args.push(b.warmUpUs ?? 0);
  pushRisk(req, keys, args);
  args.push(req.buckets.find((b) => b.leaseId !== undefined)?.leaseId ?? '');
  pushExtras(req, keys, args);
  return { keys, args, penalties: penalized.length };
}

/** The general path's risk block: the records (KEYS), how many are verified, the score parameters and bands (ARGV). */
function pushRisk(req: DecideRequest, keys: string[], args: Argv): void {
  const r = req.risk;
  if (!r || r.keys.length === 0) {
    args.push(0);
    return;
  }
  keys.push(...r.keys);
  args.push(r.keys.length, r.verified ?? 0);
  pushRiskParams(args, r.params);
}

/** The score parameters and bands of a risk block (both decision scripts). */
export function pushRiskParams(args: Argv, p: RiskParams): void {
  args.push(p.unitUs, p.newUs, p.newWeight, p.repPeriodUs, p.repPer, p.repMax);
  args.push(p.bonus, p.ttlMs, p.touchUs, p.addressUs, p.bands.length);
  // The last band's bound is never compared (it takes every higher score).
  for (const b of p.bands) args.push(Number.isFinite(b.below) ? b.below : 0, b.multiplier);
  args.push(p.quietTtlMs);
}

/** KEYS and ARGV of a `ratelimit_refund` call: each charged bucket's kind, charge and capacity. */
export function refundArgs(
  charged: readonly { b: BucketSpec; charged: number }[],
  clock: Argv,
): ScriptArgs {
  const keys: string[] = [];
  const args = clock;
  for (const { b, charged: c } of charged) {
    keys.push(b.key);
    // A lease is given back by its id (the charge of a leased kind is one lease).
    args.push(b.kind, isLeased(b) ? (b.leaseId ?? '') : c, b.capacity);
  }
  return { keys, args };
}

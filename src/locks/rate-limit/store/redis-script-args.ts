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
import {
  FLAG_PACED,
  FLAG_PENALTY,
  FLAG_RISKY,
  baseFlags,
  paced,
  pushFastBucket,
  pushRiskParams,
} from './bucket-argv.js';

// One bucket's packing lives in bucket-argv.ts; `paced` is re-exported for the store.
export { paced } from './bucket-argv.js';

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
      baseFlags(b) |
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

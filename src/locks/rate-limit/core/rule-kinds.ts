/**
 * Every kind of rule the lock decides, in one table: a policy's `algorithm`
 * names one, a BucketSpec carries its code, the stores read, decide and
 * write through it. Registering a kind is one line here (rule-kind.types.ts).
 */
import { TTL_MARGIN_MS, type BucketSpec } from './decision.types.js';
import { concurrency } from './kinds/concurrency.js';
import { fixedWindow } from './kinds/fixed-window.js';
import { gcra } from './kinds/gcra.js';
import { gcraWarm } from './kinds/gcra-warm.js';
import { tokenBucket } from './kinds/token-bucket.js';
import { tokens } from './kinds/tokens.js';
import { EPS, type OneOutcome, type RuleKind, type Stored } from './rule-kind.types.js';

export const RULE_KINDS = [gcra, tokenBucket, fixedWindow, concurrency, tokens, gcraWarm] as const;

/** The kinds a policy may name as a rule's `algorithm` (the first is the default). */
export const ALGORITHMS = RULE_KINDS.flatMap((k) => ('algorithm' in k ? [k.algorithm] : []));
export type Algorithm = Extract<(typeof RULE_KINDS)[number], { algorithm: string }>['algorithm'];

const BY_CODE = new Map<string, RuleKind>(RULE_KINDS.map((k) => [k.code, k]));
const BY_ALGORITHM = new Map<string, RuleKind>(
  RULE_KINDS.flatMap((k) => ('algorithm' in k ? [[k.algorithm, k] as const] : [])),
);

/** The kind of a bucket (its code); an unknown code is a bug, not input. */
export function ruleKind(code: string): RuleKind {
  const k = BY_CODE.get(code);
  if (!k) throw new Error(`rate limit: no rule kind "${code}"`);
  return k;
}

/** The kind a rule's `algorithm` names (validated), GCRA by default. */
export function kindOfAlgorithm(algorithm: string | undefined): RuleKind {
  return (algorithm === undefined ? undefined : BY_ALGORITHM.get(algorithm)) ?? gcra;
}

/** One bucket at multiplier `m`: its outcome, and the value to store when charged. */
export function decideOne(
  b: BucketSpec,
  v: Stored | undefined,
  m: number,
  now: number,
): OneOutcome {
  const kind = ruleKind(b.kind);
  const cap = b.capacity * m;
  return kind.decide(
    b,
    v,
    { cap, T: b.intervalUs / (kind.scalesInterval ? m : 1), limit: Math.floor(cap + EPS) },
    now,
  );
}

/** True for a kind of leases (concurrency), which the lock gives back when the answer ends. */
export function isLeased(b: Pick<BucketSpec, 'kind'>): boolean {
  return ruleKind(b.kind).leased === true;
}

/** True for a kind of reservations settled when the answer ends (token budgets). */
export function isReconciled(b: Pick<BucketSpec, 'kind'>): boolean {
  return ruleKind(b.kind).reconciled === true;
}

/** Never in the local deny cache nor in the RateLimit fields of allowed answers: leases and reservations. */
export function isSettledLater(b: Pick<BucketSpec, 'kind'>): boolean {
  const k = ruleKind(b.kind);
  return k.leased === true || k.reconciled === true;
}

/** Fill fraction (0 = empty bucket … 1 = full use) before this request. */
export function used(b: BucketSpec, v: Stored | undefined, now: number): number {
  return ruleKind(b.kind).used(b, v, now);
}

/**
 * TTL of a bucket key: its full refill time plus the margin. Capacity ×
 * interval (the GCRA tolerance) does not change under tier, degrade or
 * penalty multipliers (capacity × m, interval ÷ m), so it bounds every state
 * the bucket can be in (plus the wait of a paced bucket); for a window it is the window.
 */
export function bucketTtlMs(
  b: Pick<BucketSpec, 'kind' | 'capacity' | 'intervalUs' | 'maxWaitUs' | 'warmUpUs'>,
): number {
  // A paced bucket may be reserved up to its wait beyond full use: that much longer to refill.
  return Math.ceil((ruleKind(b.kind).refillUs(b) + (b.maxWaitUs ?? 0)) / 1000) + TTL_MARGIN_MS;
}

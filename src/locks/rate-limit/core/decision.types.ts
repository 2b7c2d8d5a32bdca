import type { RiskParams } from './risk.types.js';

/**
 * The decision model: what one decision asks (buckets, claim, told keys, risk
 * records) and (decision-answer.types.ts) what it answers, as every store and bucket-math.ts see it.
 */

// The answer side (BucketOutcome, Decision, undecided decisions) lives in decision-answer.types.ts,
// re-exported here for the many callers.
export {
  type BucketOutcome,
  type Decision,
  duplicateDecision,
  reenteredDecision,
  undecided,
} from './decision-answer.types.js';

/** The code of a rule kind (core/rule-kinds.ts): `g` GCRA, `t` token bucket, `f` fixed window (the fuse), `c` concurrency, `k` tokens. */
export type BucketKind = string;

/** One bucket to decide, with every multiplier the app knows already applied. */
export interface BucketSpec {
  /** Full Redis key, e.g. `rl:{prod:rampart}:ip:Xb3…:search.per-ip`. */
  key: string;
  /** Key of the progressive-penalty strikes (same hash tag as `key`), when the rule has a penalty. */
  penaltyKey?: string;
  kind: BucketKind;
  /** Burst in tokens (> 0, may be fractional after multipliers); the limit per window for `f`. */
  capacity: number;
  /** Microseconds per token (`g`, `t`: 1e6 / tokens per second); the window length for `f` and `k`; the lease for `c`. */
  intervalUs: number;
  /** Tokens this request takes from this bucket (integer ≥ 1; for `k`, the tokens it reserves). */
  cost: number;
  /** Decided and reported but never blocks. */
  shadow: boolean;
  /** A global bucket whose fill level drives degrade-before-reject. */
  soft: boolean;
  /** Capacity and rate × degrade factor while degraded. */
  degradable: boolean;
  /** Capacity and rate × the request's risk multiplier (DecideRequest.risk). */
  risky?: boolean;
  /**
   * Progressive penalty: strikes (each lives `decayUs`) at or past `threshold` multiply capacity and rate by
   * factor^(strikes − threshold + 1), never below `floor`; strikes are capped at `maxStrikes` (where the floor
   * is reached), which bounds the time to decay back.
   */
  penalty?: {
    threshold: number;
    factor: number;
    decayUs: number;
    floor: number;
    maxStrikes: number;
  };
  /** Refusals answered by the local deny cache since the last decision, to add as strikes (penalty rules). */
  pendingStrikes?: number;
  /** Leased kinds (concurrency): the random id of this request's lease, given back by `RateLimitStore.release`. */
  leaseId?: string;
  /** Hash-tag group: buckets of one group share a Redis Cluster slot and are decided in one call. */
  group: string;
  /**
   * Paced rules (`maxWaitMs`, kinds that pace: GCRA, token bucket): a request that would fit within this many
   * µs is admitted now, its slot reserved (the TAT advanced, the tokens owed), and waits `waitMs` before it goes
   * on. Absent or 0: refused at once, as without pacing.
   */
  maxWaitUs?: number;
  /**
   * Warm-up (a gcra rule's `warmUp`, kind 'w' only: core/kinds/gcra-warm.ts): after this many µs full and idle,
   * the bucket's rate starts at a third and rises linearly to the full rate over this many µs.
   */
  warmUpUs?: number;
}

export interface DecideRequest {
  buckets: BucketSpec[];
  /** Fill fraction of a soft bucket from which the request is degraded; 0 = no degrade. */
  degradeAt: number;
  degradeFactor: number;
  /** Degraded already known (another slot's global bucket said so). */
  degradedHint: boolean;
  /**
   * A once-only id claimed in the same call (`SET NX PX`, same hash slot as the service's buckets). Taken
   * already: the request is a duplicate and no bucket is charged. Else it is set whatever the decision.
   * A claim given back with its charge kept (`RateLimitClaims.release(…, { charged: true })`) is taken
   * again by the next copy of the request, which is then `reentered`: allowed, nothing decided or charged.
   */
  claim?: { key: string; ttlMs: number };
  /**
   * `onLimit: flag`: per bucket, the key that says "this subject was told" (same slot as the bucket). On a
   * refusal the blocker's is `SET NX PX max(retry-after, window)` (window: capacity ÷ rate, or the fixed
   * window), so a subject is told once per window; `notify` says whether it was set now.
   */
  told?: string[];
  /**
   * Risk records of the request's scored subjects (same slot): their scores pick the multiplier of the
   * `risky` buckets, in the same call (core/risk-math.ts requestRisk). A record is created at first sight.
   * The first `verified` keys (0 or absent: none) are verified subjects' records, the rest unproven ones
   * (the address): with a verified subject, an unproven record lowers the band by one at most, and only
   * within `params.addressUs` of its last signal.
   */
  risk?: { keys: string[]; params: RiskParams; verified?: number };
}

/** The value of a claim key given back with its charge kept (`'1'`: taken). Same in both stores. */
export const CLAIM_CHARGED = 'c';

/**
 * Told key of a bucket key: `rl:{<env>:<service>}:told:<rest>` for a service-tagged key,
 * `<key>:told` for a key that is its own hash tag (`scope: subject`). Same slot either way.
 */
export function toldKey(b: Pick<BucketSpec, 'key' | 'group'>): string {
  const head = `rl:${b.group}:`;
  return b.key.startsWith(head) ? `${head}told:${b.key.slice(head.length)}` : `${b.key}:told`;
}

/** Milliseconds added to every key's TTL beyond its full refill time. */
export const TTL_MARGIN_MS = 1_000;

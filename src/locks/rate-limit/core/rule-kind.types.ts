import type { BucketOutcome, BucketSpec } from './decision.types.js';

/** A value of a script reply: a string or number as stored, nil (null) when absent. */
export type Reply = string | number | null | undefined;

/** Stored state of one bucket key, as its kind keeps it: a number (GCRA TAT) or named numbers (a hash). */
export type Stored = number | Readonly<Record<string, number>>;

/** One bucket's outcome, and the value to store when charged. */
export interface OneOutcome {
  o: BucketOutcome;
  value?: Stored;
}

/** A bucket at multiplier m: capacity × m, interval ÷ m (or the window), whole tokens of limit. */
export interface Scaled {
  cap: number;
  /** Microseconds per token at m (the window for a kind that does not scale its interval). */
  T: number;
  limit: number;
}

/**
 * One kind of rule: how a bucket of it is stored, read back from a script reply,
 * decided and measured. The table in rule-kinds.ts lists every kind; the decision
 * script has the same kind in lua/lib/kind_<name>.lua. A new kind is one file here,
 * one line in that table and its Lua file (docs/rate-limit.md#adding-a-rule-kind).
 */
export interface RuleKind {
  /** Its letter in BucketSpec.kind, in script ARGV and in replies. */
  readonly code: string;
  /** The rule's `algorithm` in a policy; undefined for a kind only the lock itself uses (the fuse). */
  readonly algorithm?: string;
  /**
   * How Redis holds it: `[]` a string value (read with the other strings in one MGET), else the fields
   * of a hash (HMGET), whose values a reply carries in this order.
   */
  readonly fields: readonly string[];
  /** Multipliers (tier, degrade, penalty, risk) scale capacity and rate; false: the count only (a window). */
  readonly scalesInterval: boolean;
  /**
   * A kind of leases (concurrency), not of refill: its rule has a `lease` instead of a `rate`, a request takes
   * one lease (BucketSpec.leaseId) that the lock gives back when the answer ends, and the local deny cache and
   * the RateLimit fields of allowed answers leave it out (a slot can come back at any moment).
   */
  readonly leased?: boolean;
  /**
   * A kind of reservations settled when the answer ends (token budgets): a request reserves its worst case, and the
   * lock later gives back what it did not use (`RateLimitStore.settle`). Like leases, never answered from the local
   * deny cache and left out of the RateLimit fields of allowed answers (it has its own token headers).
   */
  readonly reconciled?: boolean;
  /**
   * A kind that can pace (a rule's `maxWaitMs`, BucketSpec.maxWaitUs): it admits a request that fits within the
   * bucket's wait by reserving its future slot, and reports the wait (BucketOutcome.waitMs).
   */
  readonly paces?: boolean;
  /** The stored state from its reply values (one per field, or the string), undefined when absent. */
  fromReply(values: readonly Reply[]): Stored | undefined;
  /** One bucket at a multiplier: its outcome and the value to store when charged (µs). */
  decide(b: BucketSpec, v: Stored | undefined, s: Scaled, now: number): OneOutcome;
  /** Fill fraction before this request: 0 = empty bucket … 1 = fully used. */
  used(b: BucketSpec, v: Stored | undefined, now: number): number;
  /** Microseconds to refill the whole bucket (its key's TTL less the margin). */
  refillUs(b: Pick<BucketSpec, 'capacity' | 'intervalUs' | 'warmUpUs'>): number;
  /** The kind's own options of a rule, accepted beside the common ones (validated by `validate`). */
  readonly options?: readonly string[];
  /** Problems with the kind's own options of a rule (empty = valid); the common ones are checked already. */
  validate?(rule: Record<string, unknown>, path: string): string[];
}

/** Tolerance of floating-point comparisons (the same EPS as the scripts). */
export const EPS = 1e-9;

/** A number from a script reply (nil = absent). */
export const replyNumber = (v: Reply): number | undefined =>
  v === null || v === undefined ? undefined : Number(v);

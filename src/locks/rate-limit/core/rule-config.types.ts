import type { Dimension } from './dimensions.js';
import type { Algorithm } from './rule-kinds.js';

/** Progressive penalty: repeated rejections shrink the rule's quota, which then decays back. */
export interface PenaltyConfig {
  /** Rejections (strikes still alive) before the quota starts to shrink. Integer ≥ 1. */
  threshold: number;
  /** Quota multiplier per strike from `threshold` on, 0 < factor < 1 (0.5 halves capacity and rate per strike). */
  factor: number;
  /** How long one strike lives: milliseconds, or a duration such as `1m`, `30s`. */
  decay: number | string;
  /** Smallest multiplier a penalty can reach (default 0.1). */
  floor?: number;
}

/** One limit of a route policy. */
export interface RuleConfig {
  /** Unique in its policy; `[a-z0-9-]`, shown in headers (`<policy>.<name>`) and metrics. */
  name: string;
  dimension: Dimension;
  /**
   * Default `gcra`: one theoretical arrival time per key; `token-bucket`: the classic tokens + timestamp pair;
   * `concurrency`: at most `capacity` requests in flight (leases, docs/rate-limit.md#concurrency).
   */
  algorithm?: Algorithm;
  /** Burst size in tokens (integer ≥ 1). Required, except for a spend budget given as `budget`. */
  capacity?: number;
  /**
   * Refill rate: tokens per second, or sugar `6/min`, `10/s`, `1000/h`, `100/d`. Required, except for
   * `algorithm: concurrency` (which has none: `capacity` is the most requests in flight).
   */
  rate?: number | string;
  /**
   * `algorithm: concurrency` only: how long a lease lives if it is never given back (an instance died):
   * milliseconds or a duration (`10m`), from 1 s to 1 d; default 10 min. Keep it above the longest answer.
   */
  lease?: number | string;
  /**
   * `algorithm: tokens` only (docs/rate-limit.md#token-rules): the budget's window, whole seconds from 1 s to 31 d
   * (`1m`, `1d`), aligned to the epoch; `capacity` is the tokens per window.
   */
  window?: number | string;
  /**
   * `algorithm: tokens` only: which tokens count, `prompt`, `completion` or `total` (default), or `spend`: the
   * answer's price in micro-dollars (`capacity` then is micro-dollars per window, docs/quotas.md#spend-budgets).
   */
  count?: 'prompt' | 'completion' | 'total' | 'spend';
  /**
   * `algorithm: tokens` only: a spend budget in US dollars per window instead of `capacity` in micro-dollars:
   * `"$5"`, `"$0.25"`, `"5 USD"` (at most 6 decimals, up to $1000). Implies `count: spend`.
   */
  budget?: string;
  /** `algorithm: tokens` only: one budget per model name within the dimension (model, app × model, …). */
  perModel?: boolean;
  /** `shadow` rules are decided and counted ("would have blocked") but never block. Default `enforce`. */
  mode?: 'enforce' | 'shadow';
  /** Fixed cost this rule charges per request, overriding the request's cost (integer ≥ 1). */
  cost?: number;
  /** Bucket name in the key; rules of several policies with the same action share one bucket. Default `<policy>.<rule>`. */
  action?: string;
  /**
   * Redis Cluster hash-tag scope. `service` (default): every key of the service shares `{<env>:<service>}`,
   * so a request is ONE atomic call. `subject`: the key gets its own slot (spreads load over masters);
   * such rules are decided per slot with reserve + refund.
   */
  scope?: 'service' | 'subject';
  penalty?: PenaltyConfig;
  /** The rule applies only if every named attribute's value is in its list (attributes registered by products). */
  when?: Record<string, string[]>;
  /** The rule is skipped if any named attribute's value is in its list. A rule skipped by a condition is not a missing subject. */
  unless?: Record<string, string[]>;
  /** This rule's place in the degrade order (overrides the slice's `degradeRank`; docs/quotas.md). */
  degradeRank?: number;
  /** `false`: the subject's risk score never scales this rule (an exact ceiling). Default true. */
  risk?: boolean;
  /**
   * Paced bursts (`gcra` and `token-bucket` only; docs/rate-limit.md#paced-bursts): a request that would fit
   * within this many milliseconds is admitted now, its slot reserved, and held that long before it goes on,
   * instead of a 429. Integer 0–60000; absent or 0: refused at once.
   */
  maxWaitMs?: number;
  /**
   * Warm-up (gcra only, docs/rate-limit.md#warm-up): a duration from 1 s to 10 min ("30s"). After that long full
   * and idle, the rule's rate starts at a third and rises linearly to the full rate over this period.
   */
  warmUp?: string | number;
  /**
   * Staged enforcement (`mode: enforce` only): enforce on `instances` percent of instances and, there, for
   * `subjects` percent of subjects (by their hashed key); everywhere else the rule runs as shadow. Each 0–100,
   * default 100. Raise the shares step by step after shadow mode (docs/rate-limit.md#staged-enforcement).
   */
  stage?: { subjects?: number; instances?: number };
}

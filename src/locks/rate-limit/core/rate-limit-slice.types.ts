import type { LockMode } from '../../../config/policy.types.js';
import type { RuleConfig } from './rule-config.types.js';

/** What a policy does when Redis cannot answer within its command timeout. */
export const FAIL_MODES = ['open', 'closed', 'local', 'queue'] as const;
export type FailMode = (typeof FAIL_MODES)[number];
/** The failModes a `queue` can end in when its wait runs out. */
export type QueueFallback = Exclude<FailMode, 'queue'>;

/** failMode `queue`: wait for Redis (bounded, in order), then the policy's fallback. */
export interface FailQueueConfig {
  /** Longest wait for Redis: milliseconds or a duration (`2s`), from 1 ms to 30 s; default 2 s. */
  maxWait?: number | string;
  /** What decides when the wait runs out or the queue is full: `local` (default), `closed` or `open`. */
  then?: QueueFallback;
}

/** What a limited request gets: `reject` answers 429 (default); `flag` lets it through with `state.limited` set. */
export const ON_LIMIT = ['reject', 'flag', 'stale'] as const;
export type OnLimit = (typeof ON_LIMIT)[number];

/** Degrade before reject: the global soft threshold. */
export interface DegradeConfig {
  /** Fraction of a `global` rule's capacity in use (0 < at < 1) from which the request is degraded. */
  at: number;
  /** Multiplier of capacity and rate of the policy's non-global rules while degraded (0 < factor ≤ 1). */
  factor: number;
}

/** The rateLimit slice of a route policy. */
export interface RateLimitSlice {
  mode: LockMode;
  /**
   * Redis unreachable: `open` lets through (counted), `closed` answers 503, `local` limits in-process at
   * limit ÷ live instances, `queue` waits for Redis (bounded by `failQueue`) then falls back. Default `local`.
   */
  failMode?: FailMode;
  /** failMode `queue` only: how long a request waits for Redis, and what decides after. */
  failQueue?: FailQueueConfig;
  rules: RuleConfig[];
  /**
   * Tokens per request: integer ≥ 1, or the name of a cost function a product registered
   * (`inference`: by `max_tokens` bands). Default 1; a route's `state.cost` wins.
   */
  cost?: number | string;
  /** Tier multipliers of capacity and rate for `app` and `user` rules, e.g. `{ free: 1, pro: 5 }` (unknown tier = 1). */
  tiers?: Record<string, number>;
  degrade?: DegradeConfig;
  /** Send `RateLimit` / `RateLimit-Policy` on allowed responses (default true). */
  headers?: boolean;
  /**
   * Name of a token counter a product registered (`inference`): what a request reserves for the slice's
   * `algorithm: tokens` rules, and the product settles when the answer ends. Required by tokens rules.
   */
  tokens?: string;
  /** Name of a claim a product registered: a request whose claim id was already taken is a duplicate (not charged). */
  claim?: string;
  /**
   * `reject` (default): 429. `flag`: never 429; `state.limited` says retry-after, rule and whether to tell the user.
   * `stale`: the 429 is held (`state.overQuota`); a later lock may answer from a cache instead (the cache shield's
   * result cache, fresh or stale, marked `cache-hit;stale;over-quota`), else the chain raises the 429 before the handler.
   */
  onLimit?: OnLimit;
  /**
   * Place in the service-wide degrade order, 0–9 (default 0): under load, the highest ranks give way
   * first (`load.cacheFrom`: answers from caches, `load.reduceFrom`: reduced quotas). docs/quotas.md.
   */
  degradeRank?: number;
  /** Requests whose attributes match are critical (exempt from load shedding), e.g. `{role: [admin]}`. */
  criticalWhen?: Record<string, string[]>;
  override?: unknown;
  [option: string]: unknown;
}

import type { LockMode } from '../../config/policy.types.js';
import type { LoadSettings } from './core/load.types.js';
import type { RiskSettings } from './core/risk.types.js';

/**
 * Where a rule finds its subject: app, user, ip, route and global are built in
 * (subjects/subject-resolver.ts); products supply the others through
 * `RateLimitModule.forFeature({ subjects })` (extensions/rate-limit-extensions.ts).
 */
export const DIMENSIONS = [
  'app',
  'user',
  'ip',
  'route',
  'command',
  'chat',
  'bot',
  'global',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/**
 * `gcra`: one theoretical arrival time per key (default); `token-bucket`: the classic tokens + timestamp pair;
 * `concurrency`: at most `capacity` requests in flight (leases, docs/rate-limit.md#concurrency).
 */
export { ALGORITHMS, type Algorithm } from './core/rule-kinds.js';
import type { Algorithm } from './core/rule-kinds.js';

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
  /** Default `gcra`. */
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

/** Module settings from CONFIG_FILE `rateLimit:` (validated by validateSettings). */
export interface RateLimitSettings {
  /** Header carrying the end-user id for the `user` dimension; trusted only when set. Lower case. */
  userHeader?: string;
  /** Bits of an IPv6 client address that make its `ip` subject (default 64: one network); IPv4 is per address. */
  ipv6Prefix: number;
  /** `redis`: clock from Redis TIME (falls back to app time where TIME is forbidden); `app`: always the app clock. */
  clock: 'redis' | 'app';
  /** Emergency fuse: at most `limit` requests per `windowMs` over every non-critical policy. */
  fuse?: { limit: number; windowMs: number };
  /** Entries of the local deny cache (0 turns it off). */
  denyCacheSize: number;
  /**
   * Caps of the in-memory store (embedded mode, failMode `local`): `entries` keys (buckets, penalties,
   * claims, told marks; about 200 bytes each), `riskRecords` risk records (about 170 bytes each),
   * `riskMarkers` payload markers and `riskChatSets` chat sets of the risk signals (oldest dropped first).
   */
  memory: { entries: number; riskRecords: number; riskMarkers: number; riskChatSets: number };
  /** Milliseconds between instance heartbeats (live-instance count for failMode `local`). */
  heartbeatMs: number;
  /** Retry-After seconds of the 503 answered by failMode `closed`. */
  closedRetryAfterS: number;
  /** Milliseconds Redis is left alone after it failed, before the next request probes it. */
  probeAfterMs: number;
  /**
   * Requests held by paced rules at once on this instance (docs/rate-limit.md#paced-bursts); one more that
   * would wait is answered 503 `pacing_full`. Default 1000.
   */
  maxPaced: number;
  /** failMode `queue`: most requests waiting for Redis at once on this instance (beyond: the fallback at once). */
  failQueueMax: number;
  /**
   * Requests of one app (the verified `appId`; unsigned requests count as one app) held by paced rules at once
   * on this instance; one more that would wait is answered 503 `pacing_full`. Default: a quarter of `maxPaced`.
   */
  maxPacedPerApp: number;
  /** failMode `queue`: most requests of one app waiting for Redis at once on this instance. Default: a quarter of `failQueueMax`. */
  failQueuePerApp: number;
  /** Risk score and reputation (core/risk.types.ts). */
  risk: RiskSettings;
  /** The service-wide load level and degrade order (core/load.types.ts). */
  load: LoadSettings;
}

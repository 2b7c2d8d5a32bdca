import type { LoadSettings } from './core/load.types.js';
import type { RiskSettings } from './core/risk.types.js';

// Re-exported for callers that take the lock's types file as its one entry (test support, the e2e
// specs, the risk recorder and the load monitor); other code imports them from core/.
export type { Dimension } from './core/dimensions.js';
export type { RuleConfig } from './core/rule-config.types.js';
export type { RateLimitSlice } from './core/rate-limit-slice.types.js';

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

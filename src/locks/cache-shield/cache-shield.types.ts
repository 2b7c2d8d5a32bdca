import type { LockMode, LockSlice } from '../../config/policy.types.js';
import type { KeySource } from './cache-shield.key-source.js';

/** One allowlisted key: skips the whole shield (filter and caches) until `until` (epoch ms) when set. */
export interface AllowlistEntry {
  key: string;
  until?: number;
}

/**
 * The cacheShield slice of a route policy (CONFIG_FILE `policies.<name>.locks.cacheShield`,
 * editable at run time through the admin API).
 */
export interface CacheShieldSlice extends LockSlice {
  mode: LockMode;
  /**
   * Name of the registered key source that reads the route's requests (see
   * cache-shield.key-source.ts). Search registers `query` (`q`, `limit`,
   * `offset` of GET /v1/search; terms filter) and `id` (the `:id` route
   * parameter; ids filter). Required unless off.
   */
  key?: string;
  /** Kill switch of the Bloom filter: `off` makes every lookup "maybe" (caches still work). Default `on`. */
  filter?: 'on' | 'off';
  /** With `filter: off`: epoch milliseconds after which the filter is on again by itself (a time-boxed kill switch). */
  filterOffUntil?: number;
  /**
   * Readiness while the filter is built or loaded: false (default) holds
   * `/health/ready` at 503 until it is usable (junk would reach the backend
   * meanwhile); true serves at once, unarmed by choice, and readiness says so.
   */
  serveWhileBuilding?: boolean;
  /** Keys that bypass the filter and both caches (queries are compared in normalised form, ids exactly). */
  allowlist?: AllowlistEntry[];
  /** Seconds an answer stays fresh in the result cache; 0 turns the result cache off. Default 60. */
  resultTtlSeconds?: number;
  /** Seconds an empty answer (no hits, unknown id) stays in the null cache; 0 turns it off. Default 10. */
  nullTtlSeconds?: number;
  /** Seconds an expired answer is kept to serve stale (degraded load, open circuit breaker). Default 600. */
  staleTtlSeconds?: number;
  /** Spread of every TTL, ± this fraction (0–0.5), so entries written together do not expire together. Default 0.1. */
  jitter?: number;
  /** Longest query in characters after normalisation (where the key source applies it); longer answers 400 `query_too_long` before any lookup. Default 512. */
  maxQueryLength?: number;
  /**
   * Who shares a cached answer (result and null caches, single flight): `app` (default) keys every
   * entry with the signing app (unsigned requests share one anonymous scope), so an app never reads,
   * pre-fills or overwrites another app's entries; `shared` gives every caller one entry per request
   * key: only for routes whose answer is the same whoever asks (public search, the model list).
   */
  cacheScope?: CacheScope;
}

/** See {@link CacheShieldSlice.cacheScope}. */
export type CacheScope = 'app' | 'shared';

/** A slice with its defaults applied and its allowlist normalised, compiled once per policy version. */
export interface ShieldRoute {
  key: string;
  /** The key source `key` names, resolved once per compiled slice. */
  source: KeySource;
  filterOn: boolean;
  /** Epoch ms from which an `off` filter is on again (Infinity = stays off). */
  filterOffUntil: number;
  /** Normalised key → expiry (epoch ms, Infinity = none). */
  allowlist: Map<string, number>;
  resultTtlMs: number;
  nullTtlMs: number;
  staleTtlMs: number;
  jitter: number;
  maxQueryLength: number;
  scope: CacheScope;
}

/** Module settings: CONFIG_FILE section `cacheShield`. */
export interface CacheShieldSettings {
  /** False-positive rate every filter is sized for (0–0.5). Default 0.001. */
  targetFpRate: number;
  /** Held-out absent keys used to measure a new build's false-positive rate. Default 20000. */
  measureSample: number;
  /** Milliseconds between checks of the backend revision for writes made outside this app (e.g. `npm run index`); 0 = never. Default 2000. */
  revisionPollMs: number;
  /** Milliseconds between comparisons of the local filters with the active builds in Redis (the safety net behind the pub/sub announcements and the resync after a reconnect). Default 120000. */
  resyncMs: number;
  /** Milliseconds a build lock is held at most (another instance may build after). Default 300000. */
  buildLockMs: number;
  /** Milliseconds an instance waits for another instance's build before building itself. Default 60000. */
  buildWaitMs: number;
  /** Milliseconds before a build's start from which announced adds are replayed into it. Default 60000. */
  addGraceMs: number;
  /** Rebuild a filter when keys added since its build exceed this fraction of its items; 0 = never. Default 0.25. */
  rebuildAfterGrowth: number;
  /** Warn when the measured false-positive rate exceeds this multiple of the target. Default 2. */
  driftFactor: number;
  /** Verdicts needed before the measured rate is trusted for the drift warning. Default 1000. */
  driftMinSamples: number;
  /** Entries of the in-process result cache used without Redis; when full, the app that filled the most loses its least recently used entry. Default 10000. */
  memoryCacheEntries: number;
  /** Fresh answers of the shared (Redis) result cache also kept in process, read without a round trip until they stop being fresh or the data generation changes. 0 = off. Default 1000. */
  hotCacheEntries: number;
  /** Days the Bloom builds stay in Redis after their last activation. Default 30. */
  bloomTtlDays: number;
}

export const DEFAULT_SETTINGS: CacheShieldSettings = {
  targetFpRate: 0.001,
  measureSample: 20_000,
  revisionPollMs: 2_000,
  resyncMs: 120_000,
  buildLockMs: 300_000,
  buildWaitMs: 60_000,
  addGraceMs: 60_000,
  rebuildAfterGrowth: 0.25,
  driftFactor: 2,
  driftMinSamples: 1_000,
  memoryCacheEntries: 10_000,
  hotCacheEntries: 1_000,
  bloomTtlDays: 30,
};

/**
 * The circuit breaker's admin port: the contract between the admin API and this lock.
 *
 * A lock module that wants admin endpoints provides an object under the
 * token (`{ provide: BREAKER_ADMIN, useExisting: BreakerRegistry }`). The admin
 * module finds it app-wide (the provider does not need to be exported or
 * global). While no provider exists the matching endpoints answer
 * 404 problem+json `lock_not_installed`.
 *
 * Methods throw a `ProblemException` for anything the caller did wrong
 * (unknown filter, unknown version, build refused by validation); it reaches
 * the admin client unchanged. Any other error becomes a 500. Results are
 * returned to the admin client as JSON: never put secrets in them.
 */

/** Injection token of the circuit breaker's BreakerAdminPort. */
export const BREAKER_ADMIN = Symbol('BREAKER_ADMIN');

/** Circuit state as opossum names it, with `half_open` for halfOpen. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** One circuit breaker (one per backend) as the admin API shows it. */
export interface BreakerStatus {
  /** Breaker name, usually the backend, e.g. `search`, `inference`. */
  name: string;
  state: BreakerState;
  /** Set while an admin force is in effect (see BreakerSliceControls). */
  forced?: 'open' | 'closed';
  /** Route policies whose calls go through this breaker. */
  policies: string[];
  /** ISO time of the last state change, when known. */
  since?: string;
  /** Rolling-window counters since the window started (fires, failures, timeouts, rejects, successes…). */
  stats: Record<string, number>;
}

/**
 * Implemented by the circuit-breaker lock: read-only. Forcing and resetting
 * are policy changes (see BreakerSliceControls), so they are versioned,
 * audited and reach every instance like any other change.
 */
export interface BreakerAdminPort {
  status(): Promise<BreakerStatus[]>;
}

/**
 * Options the admin API writes into a `circuitBreaker` slice of a route
 * policy, which the breaker lock must accept in `validateSlice` and honour
 * (from `onPolicies` or on each request):
 *
 * - `force: 'open'`   — reject every call as if open (503 / stale result), no probes;
 * - `force: 'closed'` — let every call through and do not open, whatever the error rate;
 * - `forceUntil`      — epoch milliseconds after which `force` no longer applies (absent = until removed);
 * - `resetAt`         — epoch milliseconds of the last admin reset: when it is newer than the
 *                       last reset the breaker applied, close the circuit and clear its rolling
 *                       window once (then remember it, so the same value does not reset again).
 *
 * `PUT /admin/breakers/:policy/force` sets `force` (and `forceUntil`),
 * `DELETE …/force` removes both, `POST …/reset` removes `force` and sets `resetAt`.
 */
export interface BreakerSliceControls {
  force?: 'open' | 'closed';
  forceUntil?: number;
  resetAt?: number;
}

import type { LockSlice } from '../../config/policy.types.js';
import type { AdaptiveOptions } from './adaptive/adaptive.types.js';

/**
 * Options of one backend's breaker. They live in the circuitBreaker slice of
 * ONE route policy naming the backend (its owner); the other policies that
 * name the same backend only reference it (see resolveBackends()).
 */
export interface BreakerOptions {
  /**
   * Milliseconds a call may take before the breaker aborts it (504) and counts
   * a failure. For a streamed answer: until its first byte is sent.
   */
  timeoutMs: number;
  /** Error rate (failures ÷ calls in the rolling window), in percent, above which the circuit opens (1–99). */
  errorThresholdPercentage: number;
  /** Calls in the rolling window before the error rate is judged at all (≥ 1; opossum's 0 would open on the first failure). */
  volumeThreshold: number;
  /** Length of the rolling statistics window, in milliseconds. */
  rollingCountTimeoutMs: number;
  /** Buckets the rolling window is divided into. */
  rollingCountBuckets: number;
  /** Milliseconds an open circuit waits before its first probe (before jitter). */
  resetTimeoutMs: number;
  /** Fraction (0–0.9) by which each instance randomises every reset timeout, ±, so instances do not probe in lockstep. */
  resetJitter: number;
  /** Calls at most in flight to the backend (bulkhead); a slot is held until the call has really stopped. */
  capacity: number;
  /**
   * Fair share of the bulkhead between apps: while other apps hold or wait for slots, an app takes at most
   * capacity × its weight ÷ the weights of all of them; alone it may use every idle slot (default true).
   */
  fairShare: boolean;
  /** Weight of each tier in the fair share (default 1), e.g. `{ pro: 2 }`. */
  shareWeights: Record<string, number>;
  /**
   * Milliseconds after which a call of an app over its fair share may be stopped to free its slot for an app
   * within its share that found none (an endless stream, a slow reader); 0 (default) = slots are never taken back.
   */
  reclaimAfterMs: number;
  /** Successful probe calls (one at a time) a half-open circuit needs before it lets traffic back in. */
  halfOpenProbes: number;
  /** Share of calls admitted, in percent, at each step of the recovery ramp, increasing, each in (0, 100); [] = full traffic at once. */
  rampPercents: number[];
  /** Milliseconds the whole ramp lasts (split evenly between its steps); then 100 %. */
  rampMs: number;
  /**
   * Adaptive concurrency: the limit on calls in flight follows the backend's latency against its unloaded
   * minimum (GradientLimit), always within `capacity`. `false` (default): the fixed bulkhead only. Options left
   * out take ADAPTIVE_DEFAULTS (maxLimit: `capacity`).
   */
  adaptive: false | Partial<AdaptiveOptions>;
  /** Milliseconds a call may wait, in order, for a slot when the limit is reached; 0 (default) = 503 at once. */
  maxWaitMs: number;
  /** Calls at most waiting for a slot at once; past it, 503 `backend_busy` at once. */
  maxWaiting: number;
  /**
   * Calls of one app (fairness key) at most waiting at once; past it, that app's next call gets 503
   * `backend_busy` at once while other apps still queue. Keep it below `maxWaiting` so one app cannot fill it.
   */
  maxWaitingPerApp: number;
  /** A call slower than this (milliseconds; timeouts too) is slow; 0 (default) = no slow-call rule. */
  slowCallMs: number;
  /** Share of slow calls (0–1] in the rolling window at or above which the circuit opens (reason `slow_calls`). */
  slowCallRatio: number;
  /** Finished calls in the rolling window before the slow-call share is judged at all. */
  minimumVolume: number;
}

export const BREAKER_OPTION_KEYS = [
  'timeoutMs',
  'errorThresholdPercentage',
  'volumeThreshold',
  'rollingCountTimeoutMs',
  'rollingCountBuckets',
  'resetTimeoutMs',
  'resetJitter',
  'capacity',
  'fairShare',
  'shareWeights',
  'reclaimAfterMs',
  'halfOpenProbes',
  'rampPercents',
  'rampMs',
  'adaptive',
  'maxWaitMs',
  'maxWaiting',
  'maxWaitingPerApp',
  'slowCallMs',
  'slowCallRatio',
  'minimumVolume',
] as const satisfies readonly (keyof BreakerOptions)[];

/** Admin controls (see BreakerSliceControls in circuit-breaker.admin.ts); they act on the backend's breaker. */
export interface BreakerControls {
  /** `open`: refuse every call, no probes (kill switch); `closed`: let every call through and never open. */
  force?: 'open' | 'closed';
  /** Epoch milliseconds after which `force` no longer applies (absent = until removed). */
  forceUntil?: number;
  /** Epoch milliseconds of the last admin reset; a newer value closes the circuit and clears its window once. */
  resetAt?: number;
}

/** The circuitBreaker slice of a route policy. */
export interface CircuitBreakerSlice extends LockSlice, Partial<BreakerOptions>, BreakerControls {
  /** Backend whose breaker guards the route, e.g. `search`, `inference` (required unless the slice is off). */
  backend?: string;
  /** While the circuit refuses a call, answer the cache shield's last (even expired) answer instead of 503, when there is one. */
  stale?: boolean;
}

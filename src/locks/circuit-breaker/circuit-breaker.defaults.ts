import type { LockSlice } from '../../config/policy.types.js';
import type { AdaptiveOptions } from './adaptive/adaptive.types.js';
import type { BreakerOptions, CircuitBreakerSlice } from './circuit-breaker.types.js';

/** Overload options, off until a policy opts in: fixed bulkhead, no waiting, no slow-call rule. */
const OVERLOAD_OFF = {
  adaptive: false,
  maxWaitMs: 0,
  maxWaiting: 100,
  maxWaitingPerApp: 25,
  slowCallMs: 0,
  slowCallRatio: 0.5,
  minimumVolume: 20,
  reclaimAfterMs: 0,
} as const satisfies Partial<BreakerOptions>;

/**
 * Shipped circuitBreaker slices per route policy (CONFIG_FILE and the admin
 * API override them). Options: see CircuitBreakerSlice in
 * circuit-breaker.types.ts. A backend's breaker options live in ONE policy
 * (here `search` for the search backend, which `search-item` shares, and
 * `inference`, which `models` shares); the others only name the backend.
 */
const SLICES: Record<string, CircuitBreakerSlice> = {
  // SQLite/PostgreSQL answer in milliseconds: 2 s is already an outage. Stale cached pages beat a 503.
  search: {
    mode: 'enforce',
    backend: 'search',
    stale: true,
    timeoutMs: 2_000,
    errorThresholdPercentage: 50,
    volumeThreshold: 20,
    rollingCountTimeoutMs: 10_000,
    rollingCountBuckets: 10,
    resetTimeoutMs: 10_000,
    resetJitter: 0.2,
    capacity: 256,
    fairShare: true,
    shareWeights: {},
    halfOpenProbes: 3,
    rampPercents: [10, 50],
    rampMs: 20_000,
  },
  'search-item': { mode: 'enforce', backend: 'search', stale: true },
  // LLM calls are slow and rarer: a longer window and reset, fewer probes (each is expensive), a slower ramp.
  // timeoutMs bounds a JSON answer and the first byte of a stream (INFERENCE_UPSTREAM_TIMEOUT_MS bounds gaps).
  inference: {
    mode: 'enforce',
    backend: 'inference',
    stale: false,
    timeoutMs: 30_000,
    errorThresholdPercentage: 50,
    volumeThreshold: 10,
    rollingCountTimeoutMs: 30_000,
    rollingCountBuckets: 10,
    resetTimeoutMs: 30_000,
    resetJitter: 0.2,
    capacity: 128,
    fairShare: true,
    shareWeights: { pro: 2 },
    halfOpenProbes: 2,
    rampPercents: [10, 50],
    rampMs: 60_000,
    // The GPU pool's own capacity is unknown here and changes (a degraded pool, other callers): the limit follows
    // its latency within `capacity`, so calls past what it serves at once wait here, fairly between apps, instead
    // of queueing at the backend behind other apps' calls; and an app over its share (endless or slowly read
    // streams) gives a slot back after 10 s when an app within its share finds none (bench:attack, issue 32).
    adaptive: { minLimit: 2 },
    reclaimAfterMs: 10_000,
    // A GPU saturates at once: a call past the slots waits (fair between apps) rather than a 503 at once.
    maxWaitMs: 5_000,
    maxWaiting: 64,
    maxWaitingPerApp: 16,
  },
  // The model list comes from the inference upstream: its breaker (options in `inference`), stale list while open.
  models: { mode: 'enforce', backend: 'inference', stale: true },
  admin: { mode: 'off' },
  whoami: { mode: 'off' },
};

export const CIRCUIT_BREAKER_DEFAULTS: Record<string, LockSlice> = SLICES;

/** Options of a backend whose policies set none. */
export const GENERIC_BREAKER_OPTIONS: Readonly<BreakerOptions> = Object.freeze({
  timeoutMs: 10_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 20,
  rollingCountTimeoutMs: 10_000,
  rollingCountBuckets: 10,
  resetTimeoutMs: 30_000,
  resetJitter: 0.2,
  capacity: 100,
  fairShare: true,
  shareWeights: {},
  halfOpenProbes: 3,
  rampPercents: [10, 50],
  rampMs: 30_000,
  ...OVERLOAD_OFF,
});

/** Adaptive options a policy leaves out (maxLimit: the breaker's `capacity`). */
export const ADAPTIVE_DEFAULTS: Readonly<Omit<AdaptiveOptions, 'maxLimit'>> = Object.freeze({
  minLimit: 1,
  initialLimit: 10,
  windowMs: 1_000,
  windowSamples: 10,
  minRttWindowMs: 60_000,
  tolerance: 0.25,
  smoothing: 0.2,
});

/** Options of a backend's adaptive concurrency limit (slice option `adaptive`); times in milliseconds. */
export interface AdaptiveOptions {
  /** Lowest limit, calls in flight (1–2 for a GPU backend that saturates at a few calls). */
  minLimit: number;
  /** Highest limit, calls in flight; never above the breaker's `capacity` (the fixed bulkhead). */
  maxLimit: number;
  /** Limit before the first window is judged. */
  initialLimit: number;
  /** Milliseconds a sample window lasts at least; it is judged once it also holds `windowSamples` calls. */
  windowMs: number;
  /** Calls a window needs before it is judged (fewer would make the average noise). */
  windowSamples: number;
  /** Milliseconds the unloaded minimum RTT is remembered: a backend that got slower for good is re-based after it. */
  minRttWindowMs: number;
  /** Fraction by which the sample RTT may exceed the minimum before the limit falls (Envoy's buffer, 0.25). */
  tolerance: number;
  /** Weight of each new limit against the old one (Netflix Gradient2's 0.2): 1 = no smoothing. */
  smoothing: number;
}

/** What the limit knows, for metrics and the admin view; RTTs in milliseconds (undefined before a window closed). */
export interface LimitSnapshot {
  limit: number;
  minRttMs?: number;
  sampleRttMs?: number;
  gradient?: number;
}

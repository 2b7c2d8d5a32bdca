import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';

/**
 * Per app, per user and global; cost by max_tokens bands (1, 2, 4, 8); the pro tier gets 5×.
 * Shipped for the `inference` route policy (rate-limit.defaults.ts).
 */
export const INFERENCE_SLICE: RateLimitSlice = {
  mode: 'enforce',
  failMode: 'local',
  cost: 'inference',
  // Token budgets size a request by its prompt's tokens + max_tokens (the inference module's token counter).
  tokens: 'inference',
  tiers: { free: 1, pro: 5 },
  rules: [
    { name: 'per-app', dimension: 'app', capacity: 120, rate: '20/s' },
    {
      name: 'per-user',
      dimension: 'user',
      capacity: 30,
      rate: '60/min',
      penalty: { threshold: 5, factor: 0.5, decay: '1m' },
    },
    { name: 'global', dimension: 'global', capacity: 1000, rate: '200/s' },
    // Requests in flight (docs/rate-limit.md#concurrency): no app holds the whole inference bulkhead (128)
    // with slow streams, no user more than a few; a slot is back when the answer ends, at the latest after the
    // lease (above the longest stream, INFERENCE_STREAM_MAX_DURATION_MS).
    {
      name: 'app-concurrent',
      dimension: 'app',
      algorithm: 'concurrency',
      capacity: 64,
      lease: '10m',
    },
    {
      name: 'user-concurrent',
      dimension: 'user',
      algorithm: 'concurrency',
      capacity: 4,
      lease: '10m',
    },
    // Token budgets (docs/rate-limit.md#token-rules): each request reserves its prompt's tokens + max_tokens at
    // admission, and is settled to the upstream's usage when its answer ends; never overshot under concurrency.
    {
      name: 'user-tokens',
      dimension: 'user',
      algorithm: 'tokens',
      capacity: 40_000,
      window: '1m',
    },
    {
      name: 'app-tokens-day',
      dimension: 'app',
      algorithm: 'tokens',
      capacity: 5_000_000,
      window: '1d',
    },
  ],
  degrade: { at: 0.8, factor: 0.5 },
  // Expensive work gives way first: reduced quotas at load soft.
  degradeRank: 2,
};

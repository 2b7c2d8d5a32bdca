import type { LockSlice } from '../../config/policy.types.js';
import type { CacheShieldSlice } from './cache-shield.types.js';

/**
 * Shipped cacheShield slices per route policy (CONFIG_FILE and the admin API
 * override them). Options: see CacheShieldSlice in cache-shield.types.ts.
 */
const SLICES: Record<string, CacheShieldSlice> = {
  search: {
    mode: 'enforce',
    key: 'query',
    filter: 'on',
    allowlist: [],
    resultTtlSeconds: 60,
    nullTtlSeconds: 10,
    staleTtlSeconds: 600,
    jitter: 0.1,
    maxQueryLength: 512,
    // Public data: the same page whoever asks (docs/cache-shield.md#who-shares-a-cached-answer).
    cacheScope: 'shared',
  },
  'search-item': {
    mode: 'enforce',
    key: 'id',
    filter: 'on',
    allowlist: [],
    resultTtlSeconds: 300,
    nullTtlSeconds: 30,
    staleTtlSeconds: 3_600,
    jitter: 0.1,
    cacheScope: 'shared',
  },
  // The deterministic answer cache (docs/inference.md#deterministic-answer-cache): opt in with `mode: enforce`.
  // Answers may depend on the app's own prompts: never shared across apps.
  inference: {
    mode: 'off',
    key: 'completion',
    filter: 'off',
    allowlist: [],
    resultTtlSeconds: 300,
    nullTtlSeconds: 0,
    staleTtlSeconds: 0,
    jitter: 0.1,
    cacheScope: 'app',
  },
  // One list for everybody, from the result cache (no Bloom filter); the last list while the breaker is open.
  models: {
    mode: 'enforce',
    key: 'models',
    filter: 'off',
    allowlist: [],
    resultTtlSeconds: 60,
    nullTtlSeconds: 0,
    staleTtlSeconds: 3_600,
    jitter: 0.1,
    cacheScope: 'shared',
  },
  admin: { mode: 'off' },
  whoami: { mode: 'off' },
};

export const CACHE_SHIELD_DEFAULTS: Record<string, LockSlice> = SLICES;

import type { RoutePolicy } from './policy.types.js';

/**
 * Policies shipped with the service. CONFIG_FILE may override any option;
 * the admin API changes them at run time. Each lock documents its own options.
 */
export const DEFAULT_POLICIES: Record<string, RoutePolicy> = {
  search: {
    description: 'GET /v1/search — full-text search, callable from browsers (signature optional)',
    locks: {
      signature: { mode: 'off' },
      rateLimit: { mode: 'off' },
      cacheShield: { mode: 'off' },
      circuitBreaker: { mode: 'off' },
    },
  },
  'search-item': {
    description: 'GET /v1/search/items/:id — one item by id',
    locks: {
      signature: { mode: 'off' },
      rateLimit: { mode: 'off' },
      cacheShield: { mode: 'off' },
      circuitBreaker: { mode: 'off' },
    },
  },
  inference: {
    description: 'POST /v1/inference — chat completions (signature required)',
    locks: {
      signature: { mode: 'off' },
      rateLimit: { mode: 'off' },
      cacheShield: { mode: 'off' },
      circuitBreaker: { mode: 'off' },
    },
  },
  admin: {
    description: 'Admin API — own bearer-token guard; rate limited',
    critical: true,
    locks: {
      signature: { mode: 'off' },
      rateLimit: { mode: 'off' },
      cacheShield: { mode: 'off' },
      circuitBreaker: { mode: 'off' },
    },
  },
};

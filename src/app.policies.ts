import type { LockSlice, RoutePolicy } from './config/policy.types.js';
import { LOCK_NAMES, LockName } from './chain/lock-order.js';
import { SIGNATURE_DEFAULTS } from './locks/signature/signature.defaults.js';
import { RATE_LIMIT_DEFAULTS } from './locks/rate-limit/rate-limit.defaults.js';
import { CACHE_SHIELD_DEFAULTS } from './locks/cache-shield/cache-shield.defaults.js';
import { CIRCUIT_BREAKER_DEFAULTS } from './locks/circuit-breaker/circuit-breaker.defaults.js';

/** Each lock owns its shipped slices (in its own `*.defaults.ts`). */
const SLICES: Record<LockName, Record<string, LockSlice>> = {
  signature: SIGNATURE_DEFAULTS,
  rateLimit: RATE_LIMIT_DEFAULTS,
  cacheShield: CACHE_SHIELD_DEFAULTS,
  circuitBreaker: CIRCUIT_BREAKER_DEFAULTS,
};

/** The route policies shipped with the service, by name. */
const POLICIES: Record<string, Omit<RoutePolicy, 'locks'>> = {
  search: {
    description: 'GET /v1/search — full-text search, callable from browsers (signature optional)',
  },
  'search-item': { description: 'GET /v1/search/items/:id — one item by id' },
  inference: {
    description:
      'POST /v1/chat/completions (alias POST /v1/inference) — chat completions (signature required)',
  },
  models: {
    description:
      'GET /v1/models — the models inference offers, cached briefly (signature required)',
  },
  whoami: {
    description: 'GET /v1/whoami — the identity the locks give a request (test your signing)',
  },
  admin: {
    description: 'Admin API — has its own bearer-token guard; rate limited',
    critical: true,
  },
  'session-keys': {
    description:
      "POST /v1/session-keys — mints a browser session key; signed with the app's own secret",
  },
  telegram: {
    description:
      'POST /telegram/:botId/:pathSecret — Telegram webhooks (secret token; per-bot variants telegram-<botId>)',
  },
  notifications: {
    description:
      'POST /v1/notifications, GET and DELETE /v1/notifications/:jobId — outbound Telegram notifications (signature required; one rate-limit token per job)',
  },
};

/**
 * Policies shipped with the service, assembled here (the top floor) from each
 * lock's slice defaults. CONFIG_FILE may override any option;
 * the admin API changes them at run time. Each lock documents its own options.
 */
export const SHIPPED_POLICIES: Record<string, RoutePolicy> = Object.fromEntries(
  Object.entries(POLICIES).map(([name, p]) => [
    name,
    {
      ...p,
      locks: Object.fromEntries(
        LOCK_NAMES.map((l) => [l, structuredClone(SLICES[l][name] ?? { mode: 'off' })]),
      ),
    },
  ]),
);

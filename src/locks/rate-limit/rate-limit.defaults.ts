import type { LockSlice } from '../../config/policy.types.js';
import type { RateLimitSlice } from './core/rate-limit-slice.types.js';
import { INFERENCE_SLICE } from './settings/inference.defaults.js';
import { TELEGRAM_SLICE } from './settings/telegram.defaults.js';

/**
 * Shipped rateLimit slices per route policy (CONFIG_FILE and the admin API
 * override them). Rates are tokens per second or `<n>/<unit>`; capacity is
 * the burst. Options: see RateLimitSlice in rate-limit.types.ts.
 */
const SLICES: Record<string, RateLimitSlice> = {
  // Per client address and global; a busy service degrades (search answers from cache) before it rejects.
  search: {
    mode: 'enforce',
    failMode: 'local',
    cost: 1,
    rules: [
      { name: 'per-ip', dimension: 'ip', capacity: 60, rate: '10/s' },
      { name: 'global', dimension: 'global', capacity: 4000, rate: '2000/s' },
    ],
    degrade: { at: 0.8, factor: 1 },
    // Service-wide degrade order (docs/quotas.md): non-core, cacheable: answered from caches at load soft.
    degradeRank: 1,
  },
  'search-item': {
    mode: 'enforce',
    degradeRank: 1,
    failMode: 'local',
    rules: [
      { name: 'per-ip', dimension: 'ip', capacity: 120, rate: '20/s' },
      { name: 'global', dimension: 'global', capacity: 8000, rate: '4000/s' },
    ],
  },
  // Per app, per user, concurrency and token budgets (settings/inference.defaults.ts).
  inference: INFERENCE_SLICE,
  // GET /v1/models: answered from the shield's cache almost always; a per-app and a global cap.
  models: {
    mode: 'enforce',
    degradeRank: 1,
    failMode: 'local',
    cost: 1,
    rules: [
      { name: 'per-app', dimension: 'app', capacity: 30, rate: '1/s' },
      { name: 'global', dimension: 'global', capacity: 500, rate: '100/s' },
    ],
  },
  // Critical: exempt from global shedding; per client address only. Fails open so operators are never locked out.
  admin: {
    mode: 'enforce',
    failMode: 'open',
    rules: [{ name: 'per-ip', dimension: 'ip', capacity: 60, rate: '2/s' }],
  },
  // Minting session keys (called by an app's own server, once per user every few minutes): per app.
  'session-keys': {
    mode: 'enforce',
    failMode: 'local',
    rules: [{ name: 'per-app', dimension: 'app', capacity: 200, rate: '50/s' }],
  },
  // Telegram webhooks (settings/telegram.defaults.ts, docs/telegram.md#limits).
  telegram: TELEGRAM_SLICE,
  // Outbound Telegram notifications: per app, one token per job (cost function `notifications`; a batch
  // of at most 100 jobs fits the burst).
  notifications: {
    mode: 'enforce',
    failMode: 'local',
    cost: 'notifications',
    rules: [{ name: 'per-app', dimension: 'app', capacity: 300, rate: '100/s' }],
  },
};

export const RATE_LIMIT_DEFAULTS: Record<string, LockSlice> = SLICES;

import type { LockSlice } from '../../chain/policy.types.js';

/** Shipped rateLimit slices per route policy (CONFIG_FILE and the admin API override them). */
export const RATE_LIMIT_DEFAULTS: Record<string, LockSlice> = {
  search: { mode: 'off' },
  'search-item': { mode: 'off' },
  inference: { mode: 'off' },
  admin: { mode: 'off' },
};

import type { SignatureSlice } from './signature.types.js';

/**
 * Shipped signature slices per route policy (CONFIG_FILE and the admin API
 * override them). Admin has its own bearer-token guard; health routes are
 * not behind the chain at all.
 */
export const SIGNATURE_DEFAULTS: Record<string, SignatureSlice> = {
  search: { mode: 'enforce', signed: 'optional' },
  'search-item': { mode: 'enforce', signed: 'optional' },
  inference: { mode: 'enforce', signed: 'required' },
  models: { mode: 'enforce', signed: 'required' },
  whoami: { mode: 'enforce', signed: 'optional' },
  admin: { mode: 'off', signed: 'optional' },
  'session-keys': { mode: 'enforce', signed: 'required' },
  notifications: { mode: 'enforce', signed: 'required' },
  // Webhooks: the secret-token header and path (registered by the Telegram product), no signature.
  // The 401 is deferred until the rate limiter charged the per-IP rule for unverified requests.
  telegram: { mode: 'enforce', secretToken: 'telegram', onFailure: 'defer' },
};

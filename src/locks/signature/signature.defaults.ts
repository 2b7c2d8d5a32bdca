import type { LockMode } from '../../config/policy.types.js';

/** Whether a route needs a signature: `required` (unsigned → 401) or `optional` (signed requests are verified, unsigned ones pass as anonymous). */
export type SignedRequirement = 'required' | 'optional';

/** The signature lock's slice of a route policy. */
export interface SignatureSlice {
  mode: LockMode;
  /** Default `required`. */
  signed?: SignedRequirement;
  [option: string]: unknown;
}

/**
 * Shipped signature slices per route policy (CONFIG_FILE and the admin API
 * override them). Admin has its own bearer-token guard; health routes are
 * not behind the chain at all.
 */
export const SIGNATURE_DEFAULTS: Record<string, SignatureSlice> = {
  search: { mode: 'enforce', signed: 'optional' },
  'search-item': { mode: 'enforce', signed: 'optional' },
  inference: { mode: 'enforce', signed: 'required' },
  whoami: { mode: 'enforce', signed: 'optional' },
  admin: { mode: 'off', signed: 'optional' },
};

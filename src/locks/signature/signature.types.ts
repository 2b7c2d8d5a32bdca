import type { LockMode } from '../../config/policy.types.js';

/** Whether a route needs a signature: `required` (unsigned → 401) or `optional` (signed requests are verified, unsigned ones pass as anonymous). */
export type SignedRequirement = 'required' | 'optional';

/** The signature lock's slice of a route policy. */
export interface SignatureSlice {
  mode: LockMode;
  /** Default `required`. */
  signed?: SignedRequirement;
  /**
   * Verify a shared secret header instead of a signature: the name of a source a product
   * registered with `SignatureModule.forFeature({ secretTokens })` (e.g. `telegram`).
   */
  secretToken?: string;
  [option: string]: unknown;
}

/** The `signature:` section of CONFIG_FILE. */
export interface SignatureSettings {
  /** Allowed clock difference in seconds, both ways, for apps without their own `skewSeconds` (default 180). */
  skewSeconds: number;
  /** Most nonces the in-process store holds when no Redis is configured (default 500000, ~150 bytes each). */
  memoryNonceMaxEntries: number;
  /**
   * Most session keys denied at once in memory (revoked keys, until they expire) when no Redis is configured
   * (default 100000, ~200 bytes each); full of live denials, a new revocation answers 503 rather than forget one.
   */
  memorySessionKeyDenials: number;
}

/** Largest allowed clock difference in seconds (the service default and each app's `skewSeconds`). */
export const MAX_SKEW_SECONDS = 600;

/** Which signing scheme a request used (selects the WWW-Authenticate challenge). */
export type SignatureScheme = 'hmac' | 'rfc9421';

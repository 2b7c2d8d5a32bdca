/** What claiming a session key request's nonce found. */
export type SessionClaim = 'fresh' | 'replayed' | 'revoked';

/**
 * Session key state that is not in the key id: the deny set (keys revoked
 * one by one, remembered for the key's remaining life) and, in the same
 * call, the nonce claim — so a session key costs no extra round trip.
 */
export interface SessionKeyStore {
  readonly kind: 'redis' | 'memory';
  /**
   * Refuses (`revoked`) when `keyId` is denied, else claims the nonce like
   * NonceStore.claim. Rejects with NonceStoreUnavailableError when it cannot decide.
   */
  claim(appId: string, nonce: string, ttlMs: number, keyId: string): Promise<SessionClaim>;
  /** Denies `keyId` for `ttlMs` (the key's remaining life). */
  deny(keyId: string, ttlMs: number): Promise<void>;
  /** Whether `keyId` is denied now. */
  denied(keyId: string): Promise<boolean>;
}

/** Injection token of the SessionKeyStore (the admin API denies keys through it). */
export const SESSION_KEY_STORE = Symbol('SessionKeyStore');

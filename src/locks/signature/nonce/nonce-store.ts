/**
 * Remembers the nonces of accepted requests for as long as their timestamp
 * could still be accepted, so a request cannot be replayed.
 */
export interface NonceStore {
  /**
   * Claims `nonce` for `appId` for `ttlMs` milliseconds. Resolves true when
   * this is its first use, false when it was already claimed (a replay).
   * Rejects with NonceStoreUnavailableError when it cannot decide — the
   * signature lock then fails closed (503).
   */
  claim(appId: string, nonce: string, ttlMs: number): Promise<boolean>;
  /**
   * Optional: the Redis key of a nonce, for a store whose claim another Redis script may
   * make instead (`SET key 1 NX PX ttl`, the same key and value as claim()).
   */
  key?(appId: string, nonce: string): string;
  /** Stops timers / releases resources. */
  close?(): void;
}

/** Injection token of the NonceStore. */
export const NonceStore = Symbol('NonceStore');

/** The store could not say whether a nonce is fresh (Redis down, memory store full). */
export class NonceStoreUnavailableError extends Error {
  override readonly name = 'NonceStoreUnavailableError';
  constructor(reason: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`nonce store unavailable: ${reason}`);
    Error.stackTraceLimit = limit;
  }
}

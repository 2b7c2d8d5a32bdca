import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';
import { ProblemException } from '../../../common/problem.exception.js';
import type { NonceStore } from '../nonce/nonce-store.js';
import type { SessionClaim, SessionKeyStore } from './session-key-store.js';

/** Most keys denied at once in memory by default (about 200 bytes each): `signature.memorySessionKeyDenials`. */
const MAX_DENIED = 100_000;

/**
 * The deny set of one instance without Redis (embedded mode): a TTL map beside the memory nonce store.
 * Bounded: a denial lapses when its key expires; full of live denials, a new denial is refused (503)
 * rather than forget one, which would make a revoked key work again.
 */
export class MemorySessionKeyStore implements SessionKeyStore {
  readonly kind = 'memory' as const;
  private readonly deniedUntil: BoundedMap<string, number>;

  constructor(
    private readonly clock: Clock,
    private readonly nonces: NonceStore,
    maxDenied = MAX_DENIED,
  ) {
    this.deniedUntil = new BoundedMap({
      store: 'session_key_denials',
      maxEntries: maxDenied,
      whenFull: 'refuse',
      expired: (until, now) => until <= now,
    });
  }

  async claim(appId: string, nonce: string, ttlMs: number, keyId: string): Promise<SessionClaim> {
    if (await this.denied(keyId)) return 'revoked';
    return (await this.nonces.claim(appId, nonce, ttlMs)) ? 'fresh' : 'replayed';
  }

  deny(keyId: string, ttlMs: number): Promise<void> {
    const now = this.clock.now();
    if (!this.deniedUntil.set(keyId, now + Math.max(1, ttlMs), now))
      return Promise.reject(
        new ProblemException(503, 'nonce_store_unavailable', 'Session key store is full', {
          detail: `${this.deniedUntil.maxEntries} session keys are denied and none has expired yet`,
          headers: { 'Retry-After': '60' },
        }),
      );
    return Promise.resolve();
  }

  denied(keyId: string): Promise<boolean> {
    const until = this.deniedUntil.get(keyId);
    if (until === undefined) return Promise.resolve(false);
    if (until > this.clock.now()) return Promise.resolve(true);
    this.deniedUntil.delete(keyId);
    return Promise.resolve(false);
  }
}

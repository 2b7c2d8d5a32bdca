import type { Clock } from '../../../common/clock.js';
import type { NonceStore } from '../nonce/nonce-store.js';
import type { SessionClaim, SessionKeyStore } from './session-key-store.js';

/** Most keys denied at once in memory; beyond it the oldest entries that expired are swept first. */
const MAX_DENIED = 100_000;

/** The deny set of one instance without Redis (embedded mode): a TTL map beside the memory nonce store. */
export class MemorySessionKeyStore implements SessionKeyStore {
  readonly kind = 'memory' as const;
  private readonly deniedUntil = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly nonces: NonceStore,
  ) {}

  async claim(appId: string, nonce: string, ttlMs: number, keyId: string): Promise<SessionClaim> {
    if (await this.denied(keyId)) return 'revoked';
    return (await this.nonces.claim(appId, nonce, ttlMs)) ? 'fresh' : 'replayed';
  }

  deny(keyId: string, ttlMs: number): Promise<void> {
    const now = this.clock.now();
    if (this.deniedUntil.size >= MAX_DENIED)
      for (const [k, until] of this.deniedUntil) if (until <= now) this.deniedUntil.delete(k);
    this.deniedUntil.delete(keyId);
    this.deniedUntil.set(keyId, now + Math.max(1, ttlMs));
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

import { createHash } from 'node:crypto';
import type { RedisService } from '../../../redis/redis.service.js';
import { NonceStoreUnavailableError } from '../nonce/nonce-store.js';
import type { RedisNonceStore } from '../nonce/redis-nonce.store.js';
import type { SessionClaim, SessionKeyStore } from './session-key-store.js';

const CLAIMS: Record<number, SessionClaim> = { 0: 'replayed', 1: 'fresh', 2: 'revoked' };

/**
 * The deny set in Redis, `skdeny:{<env>:<service>}:<SHA-256 of the key id>` (a key id carries its user id,
 * which must not be readable in Redis; its random part makes the digest unguessable) with a TTL of
 * the key's remaining life; checked in the nonce claim's own script
 * (lua/signature_session_claim.lua), so it adds no round trip.
 */
export class RedisSessionKeyStore implements SessionKeyStore {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: RedisService,
    private readonly nonces: RedisNonceStore,
  ) {}

  key(keyId: string): string {
    return `skdeny:${this.redis.tag}:${createHash('sha256').update(keyId).digest('base64url')}`;
  }

  async claim(appId: string, nonce: string, ttlMs: number, keyId: string): Promise<SessionClaim> {
    try {
      const reply = await this.redis.script<number>(
        'signature_session_claim',
        [this.nonces.key(appId, nonce), this.key(keyId)],
        [Math.ceil(ttlMs)],
      );
      return CLAIMS[reply] ?? 'replayed';
    } catch (err) {
      throw new NonceStoreUnavailableError((err as Error).message);
    }
  }

  async deny(keyId: string, ttlMs: number): Promise<void> {
    await this.redis.run('session_key_deny', (c) =>
      c.set(this.key(keyId), '1', 'PX', Math.max(1, Math.ceil(ttlMs))),
    );
  }

  async denied(keyId: string): Promise<boolean> {
    return (await this.redis.run('session_key_denied', (c) => c.exists(this.key(keyId)))) === 1;
  }
}

import type { RedisService } from '../../../redis/redis.service.js';
import { NonceStore, NonceStoreUnavailableError } from './nonce-store.js';

/**
 * Nonces in Redis, shared by every instance: one `SET key 1 NX PX ttl` per
 * accepted request. Key `nonce:{<env>:<service>}:<appId>:<nonce>`. Any Redis
 * failure means "cannot decide": the lock fails closed.
 */
export class RedisNonceStore implements NonceStore {
  constructor(private readonly redis: RedisService) {}

  key(appId: string, nonce: string): string {
    return `nonce:${this.redis.tag}:${appId}:${nonce}`;
  }

  async claim(appId: string, nonce: string, ttlMs: number): Promise<boolean> {
    const key = this.key(appId, nonce);
    try {
      const reply = await this.redis.run('nonce_claim', (c) => c.set(key, '1', 'PX', ttlMs, 'NX'));
      return reply === 'OK';
    } catch (err) {
      throw new NonceStoreUnavailableError((err as Error).message);
    }
  }
}

import type { RedisService } from '../../../redis/redis.service.js';
import type { ResultCacheStore } from './result-cache.store.js';

/** Result cache in Redis: one string per answer with a millisecond TTL. Errors come out typed (RedisUnavailableError). */
export class RedisResultCacheStore implements ResultCacheStore {
  readonly shared = true;

  constructor(private readonly redis: RedisService) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.run('shield.cache_get', (c) => c.get(key))) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.run('shield.cache_set', (c) =>
      c.set(key, value, 'PX', Math.max(1, Math.round(ttlMs))),
    );
  }
}

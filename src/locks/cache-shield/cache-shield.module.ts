import { Module, OnModuleInit } from '@nestjs/common';
import { BLOOM_ADMIN } from './cache-shield.admin.js';
import { LockChain } from '../../chain/lock-chain.service.js';
import { RAMPART_CONFIG } from '../../config/config.constants.js';
import { RedisService } from '../../redis/redis.service.js';
import { AnswerCache } from './cache/answer-cache.js';
import { MemoryResultCacheStore } from './cache/memory-result-cache.store.js';
import { RedisResultCacheStore } from './cache/redis-result-cache.store.js';
import { CacheShieldLock } from './cache-shield.lock.js';
import { ShieldMetrics } from './cache-shield.metrics.js';
import { ANSWER_CACHE, ShieldService } from './cache-shield.service.js';
import { CACHE_SHIELD_SETTINGS, cacheShieldSettings } from './cache-shield.settings.js';
import type { CacheShieldSettings } from './cache-shield.types.js';
import { BloomAdmin } from './filters/bloom-admin.service.js';
import { BloomFilters } from './filters/bloom-filters.service.js';
import { BloomService } from './filters/bloom.service.js';
import { BLOOM_STORE } from './store/bloom-store.js';
import { MemoryBloomStore } from './store/memory-bloom.store.js';
import { RedisBloomStore } from './store/redis-bloom.store.js';

/** Milliseconds the result cache is left alone after a Redis failure. */
const CACHE_BACKOFF_MS = 1_000;

/**
 * Lock 3: Bloom filters of the search backend's terms and ids, result and
 * null caches, single flight. With Redis: builds, adds and caches are
 * shared; without: memory stores for one instance.
 */
@Module({
  providers: [
    { provide: CACHE_SHIELD_SETTINGS, useFactory: cacheShieldSettings, inject: [RAMPART_CONFIG] },
    ShieldMetrics,
    {
      provide: BLOOM_STORE,
      inject: [RedisService],
      useFactory: (redis: RedisService) =>
        redis.enabled ? new RedisBloomStore(redis) : new MemoryBloomStore(),
    },
    {
      provide: ANSWER_CACHE,
      inject: [RedisService, CACHE_SHIELD_SETTINGS, ShieldMetrics],
      useFactory: (redis: RedisService, settings: CacheShieldSettings, metrics: ShieldMetrics) =>
        new AnswerCache(
          redis.enabled
            ? new RedisResultCacheStore(redis)
            : new MemoryResultCacheStore(settings.memoryCacheEntries),
          `shield:${redis.tag}:r`,
          (op) => metrics.cacheErrors.inc({ op }),
          { isUp: () => !redis.enabled || redis.ready, backoffMs: CACHE_BACKOFF_MS },
        ),
    },
    BloomFilters,
    BloomService,
    BloomAdmin,
    { provide: BLOOM_ADMIN, useExisting: BloomAdmin },
    ShieldService,
    CacheShieldLock,
  ],
  exports: [CacheShieldLock, BloomService, BLOOM_ADMIN],
})
export class CacheShieldModule implements OnModuleInit {
  constructor(
    private readonly chain: LockChain,
    private readonly lock: CacheShieldLock,
  ) {}

  onModuleInit(): void {
    this.chain.register(this.lock);
  }
}

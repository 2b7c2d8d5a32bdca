import { DynamicModule, Inject, Module, OnModuleInit } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RAMPART_CONFIG } from '../../config/config.constants.js';
import { RedisService } from '../../redis/redis.service.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { bloomArming } from './bloom/bloom-arming.js';
import { BloomAdmin } from './bloom/bloom-admin.service.js';
import { BloomService } from './bloom/bloom.service.js';
import { BloomFilters } from './bloom/replicas/bloom-filters.service.js';
import { ANSWER_CACHE, AnswerCache } from './cache/answer-cache.js';
import { BLOOM_ADMIN } from './cache-shield.admin.js';
import {
  type CacheShieldFeatureAsyncOptions,
  CacheShieldFeatureModule,
} from './cache-shield.feature.js';
import { CacheShieldLock } from './cache-shield.lock.js';
import { ShieldMetrics } from './cache-shield.metrics.js';
import {
  type CacheShieldFeature,
  CacheShieldRegistry,
  CacheShieldRegistryModule,
} from './cache-shield.registry.js';
import { CACHE_SHIELD_SETTINGS, cacheShieldSettings } from './cache-shield.settings.js';
import type { CacheShieldSettings } from './cache-shield.types.js';
import { ShieldService } from './request/shield.service.js';
import { BLOOM_STORE } from './store/bloom-store.js';
import { MemoryBloomStore } from './store/memory-bloom.store.js';
import { MemoryResultCacheStore } from './store/memory-result-cache.store.js';
import { RedisBloomStore } from './store/redis-bloom.store.js';
import { RedisResultCacheStore } from './store/redis-result-cache.store.js';

/** Milliseconds the result cache is left alone after a Redis failure. */
const CACHE_BACKOFF_MS = 1_000;

/**
 * Lock 3: Bloom filters of the products' keys, result and null caches,
 * single flight. Products plug in with `CacheShieldModule.forFeature` (key
 * sources, filters). With Redis: builds, adds and caches are shared;
 * without: memory stores for one instance.
 */
@Module({
  imports: [CacheShieldRegistryModule],
  providers: [
    { provide: CACHE_SHIELD_SETTINGS, useFactory: cacheShieldSettings, inject: [RAMPART_CONFIG] },
    ShieldMetrics,
    {
      provide: BLOOM_STORE,
      inject: [RedisService, CLOCK],
      useFactory: (redis: RedisService, clock: Clock) =>
        redis.enabled ? new RedisBloomStore(redis) : new MemoryBloomStore(clock),
    },
    {
      provide: ANSWER_CACHE,
      inject: [RedisService, CACHE_SHIELD_SETTINGS, ShieldMetrics, CLOCK],
      useFactory: (
        redis: RedisService,
        settings: CacheShieldSettings,
        metrics: ShieldMetrics,
        clock: Clock,
      ) =>
        new AnswerCache(
          redis.enabled
            ? new RedisResultCacheStore(redis)
            : new MemoryResultCacheStore(settings.memoryCacheEntries, clock),
          `shield:${redis.tag}:r`,
          (op) => metrics.cacheErrors.inc({ op }),
          {
            isUp: () => !redis.enabled || redis.ready,
            backoffMs: CACHE_BACKOFF_MS,
            clock,
            // Without Redis the store is in process already.
            hotEntries: redis.enabled ? settings.hotCacheEntries : 0,
          },
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
    private readonly health: HealthRegistry,
    private readonly registry: CacheShieldRegistry,
    private readonly filters: BloomFilters,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * What a product imports to plug in: its key sources (the slice option
   * `key` names one) and its filters. Does nothing when the shield is not
   * installed. See cache-shield.key-source.ts and cache-shield.filter-source.ts.
   */
  static forFeature(feature: CacheShieldFeature): DynamicModule {
    return CacheShieldFeatureModule.register({ useFactory: () => feature });
  }

  /** The same, with the feature built from the product's providers (`inject`). */
  static forFeatureAsync(options: CacheShieldFeatureAsyncOptions): DynamicModule {
    return CacheShieldFeatureModule.register(options);
  }

  onModuleInit(): void {
    this.chain.register(this.lock);
    this.health.registerArming('cacheShield', () =>
      bloomArming(
        this.chain.current().policies,
        this.registry.keySources,
        this.filters.replicas,
        this.clock.now(),
      ),
    );
  }
}

import type { FactoryProvider } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { RAMPART_CONFIG } from '../../../config/config.constants.js';
import type { RampartConfig } from '../../../config/config.types.js';
import { RedisService } from '../../../redis/redis.service.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { RATE_LIMIT_SETTINGS } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import { MemoryRiskRecords } from './risk/memory-risk-records.js';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';

/** The in-process store: the service's store without Redis, and failMode `local`'s with it. */
export const memoryStoreProvider: FactoryProvider<MemoryRateLimitStore> = {
  provide: MemoryRateLimitStore,
  useFactory: (clock: Clock, s: RateLimitSettings) =>
    new MemoryRateLimitStore(clock, new MemoryRiskRecords(s.memory.riskRecords), s.memory.entries),
  inject: [CLOCK, RATE_LIMIT_SETTINGS],
};

/** RATE_LIMIT_STORE: Redis (one Lua call per slot) when it is configured, else the memory store. */
export const rateLimitStoreProvider: FactoryProvider<RateLimitStore> = {
  provide: RATE_LIMIT_STORE,
  useFactory: (
    redis: RedisService,
    config: RampartConfig,
    settings: RateLimitSettings,
    clock: Clock,
    metrics: RateLimitMetrics,
    memory: MemoryRateLimitStore,
  ): RateLimitStore =>
    redis.enabled
      ? new RedisRateLimitStore(redis, {
          clock: settings.clock,
          cluster: config.redis.clusterNodes.length > 0,
          deadlineMs: config.redis.commandTimeoutMs,
          appClock: clock,
          onRefund: (n) => metrics.refunds.inc(n),
        })
      : memory,
  inject: [
    RedisService,
    RAMPART_CONFIG,
    RATE_LIMIT_SETTINGS,
    CLOCK,
    RateLimitMetrics,
    MemoryRateLimitStore,
  ],
};

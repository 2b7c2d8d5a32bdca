import type { Provider } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RedisService } from '../../redis/redis.service.js';
import { LOAD_STORE } from './store/load/load-store.js';
import { LoadMonitor } from './load/load-monitor.service.js';
import { HEALTH_SOURCE, NodeHealthSource } from './load/health-source.js';
import { MemoryLoadStore } from './store/load/memory-load.store.js';
import { QuotaMetrics } from './quota.metrics.js';
import { RedisLoadStore } from './store/load/redis-load.store.js';
import { RATE_LIMIT_ADMIN, USAGE_ADMIN } from './rate-limit.admin.js';
import { RATE_LIMIT_SETTINGS } from './rate-limit.settings.js';
import type { RateLimitSettings } from './rate-limit.types.js';
import { MemoryRiskStore } from './store/risk/memory-risk.store.js';
import { RedisRiskStore } from './store/risk/redis-risk.store.js';
import { RiskPlanner } from './risk/risk-planner.js';
import { RiskRecorder } from './risk/risk-recorder.service.js';
import { RISK_SINK } from './extensions/risk-sink.js';
import { RISK_STORE } from './store/risk/risk-store.js';
import { RateLimitAdmin } from './subject-admin.service.js';
import { UsageAdmin } from './usage-admin.service.js';
import { MemoryRateLimitStore } from './store/memory-rate-limit.store.js';

/**
 * Dynamic quotas (docs/quotas.md): risk scores (planner, stores, the signal
 * sink products feed) and the service-wide load level (stores, monitor), with
 * the lock's admin port. Redis stores when Redis is configured, else memory.
 */
export const QUOTA_PROVIDERS: Provider[] = [
  QuotaMetrics,
  {
    provide: RiskPlanner,
    useFactory: (s: RateLimitSettings) => new RiskPlanner(s.risk),
    inject: [RATE_LIMIT_SETTINGS],
  },
  {
    provide: MemoryRiskStore,
    useFactory: (m: MemoryRateLimitStore, clock: Clock, s: RateLimitSettings) =>
      new MemoryRiskStore(m.risk, clock, s.memory),
    inject: [MemoryRateLimitStore, CLOCK, RATE_LIMIT_SETTINGS],
  },
  {
    provide: RISK_STORE,
    useFactory: (redis: RedisService, mem: MemoryRiskStore, s: RateLimitSettings, clock: Clock) =>
      redis.enabled ? new RedisRiskStore(redis, clock, s.clock) : mem,
    inject: [RedisService, MemoryRiskStore, RATE_LIMIT_SETTINGS, CLOCK],
  },
  RiskRecorder,
  { provide: RISK_SINK, useExisting: RiskRecorder },
  {
    provide: MemoryLoadStore,
    useFactory: (m: MemoryRateLimitStore, clock: Clock) => new MemoryLoadStore(m, clock),
    inject: [MemoryRateLimitStore, CLOCK],
  },
  {
    provide: LOAD_STORE,
    useFactory: (redis: RedisService, mem: MemoryLoadStore, s: RateLimitSettings, clock: Clock) =>
      redis.enabled ? new RedisLoadStore(redis, clock, s.clock) : mem,
    inject: [RedisService, MemoryLoadStore, RATE_LIMIT_SETTINGS, CLOCK],
  },
  NodeHealthSource,
  { provide: HEALTH_SOURCE, useExisting: NodeHealthSource },
  LoadMonitor,
  RateLimitAdmin,
  { provide: RATE_LIMIT_ADMIN, useExisting: RateLimitAdmin },
  UsageAdmin,
  { provide: USAGE_ADMIN, useExisting: UsageAdmin },
];

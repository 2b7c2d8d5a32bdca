import { DynamicModule, Module, OnModuleInit } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { FrontDoor } from '../../common/front-door.js';
import { RAMPART_CONFIG } from '../../config/config.constants.js';
import type { RampartConfig } from '../../config/config.types.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { CidrSet } from '../../http/cidr.js';
import { RedisService } from '../../redis/redis.service.js';
import type { RateLimitFeature } from './extensions/rate-limit-extensions.js';
import {
  RateLimitExtensionsModule,
  RateLimitFeatureModule,
} from './extensions/rate-limit-extensions.module.js';
import { CompiledPolicies } from './limiter/compiled-policies.js';
import { DenyCache } from './limiter/deny-cache.js';
import { RateLimitClaims } from './limiter/rate-limit-claims.js';
import { RateLimitLeases } from './limiter/rate-limit-leases.js';
import { TokenReservations } from './limiter/token-reservations.js';
import { RateLimitPeers } from './store/lanes/rate-limit-peers.service.js';
import { RateLimiter } from './limiter/rate-limiter.service.js';
import { RedisWaitRoom } from './limiter/redis-wait-room.js';
import { StoreDown } from './limiter/store-down.js';
import { DecisionHolds } from './limiter/decision-holds.js';
import { LaneDecider } from './limiter/lane-decider.js';
import { StoreLanes } from './store/lanes/store-lanes.js';
import { Verdicts } from './limiter/verdicts.js';
import { loadHealth, storeHealth } from './rate-limit.health.js';
import { RateLimitLock } from './rate-limit.lock.js';
import { RateLimitMetrics } from './rate-limit.metrics.js';
import { RATE_LIMIT_SETTINGS, rateLimitSettings } from './rate-limit.settings.js';
import type { RateLimitSettings } from './rate-limit.types.js';
import { memoryStoreProvider, rateLimitStoreProvider } from './store/rate-limit-store.provider.js';
import { KeyHashers } from './store/lanes/key-hashers.js';
import { SubjectResolver } from './subjects/subject-resolver.js';
import { QUOTA_PROVIDERS } from './quotas.providers.js';
import { RATE_LIMIT_ADMIN, USAGE_ADMIN } from './rate-limit.admin.js';
import { RISK_SINK } from './extensions/risk-sink.js';
import { LoadMonitor } from './load/load-monitor.service.js';
import { BAN_PROVIDERS } from './bans/ban.providers.js';
import { RATE_LIMIT_BANS } from './bans/ban.types.js';
import { Pacer } from './limiter/pacer.js';
import { PacingMetrics } from './limiter/pacing.metrics.js';
import { RateLimitFrontDoor } from './front/rate-limit-front-door.js';
import { ShedFirst } from './front/shed-first.js';
import { ResponseTaps } from '../../common/response-taps.js';

/** Lock 2: multi-dimensional rate limits decided atomically (one Redis call per request). */
@Module({
  imports: [RateLimitExtensionsModule],
  providers: [
    { provide: RATE_LIMIT_SETTINGS, useFactory: rateLimitSettings, inject: [RAMPART_CONFIG] },
    RateLimitMetrics,
    memoryStoreProvider,
    rateLimitStoreProvider,
    {
      provide: DenyCache,
      useFactory: (s: RateLimitSettings) => new DenyCache(s.denyCacheSize),
      inject: [RATE_LIMIT_SETTINGS],
    },
    {
      provide: SubjectResolver,
      useFactory: (config: RampartConfig, s: RateLimitSettings, m: RateLimitMetrics) =>
        new SubjectResolver(new CidrSet(config.trustedProxies), s.userHeader, s.ipv6Prefix, () =>
          m.malformedForwards.inc(),
        ),
      inject: [RAMPART_CONFIG, RATE_LIMIT_SETTINGS, RateLimitMetrics],
    },
    RateLimitPeers,
    KeyHashers,
    StoreLanes,
    Verdicts,
    CompiledPolicies,
    RateLimiter,
    RedisWaitRoom,
    StoreDown,
    DecisionHolds,
    LaneDecider,
    RateLimitLock,
    RateLimitClaims,
    RateLimitLeases,
    TokenReservations,
    PacingMetrics,
    Pacer,
    RateLimitFrontDoor,
    ShedFirst,
    ...QUOTA_PROVIDERS,
    ...BAN_PROVIDERS,
  ],
  exports: [
    RateLimitLock,
    RATE_LIMIT_SETTINGS,
    RateLimitClaims,
    RISK_SINK,
    RATE_LIMIT_ADMIN,
    RATE_LIMIT_BANS,
    USAGE_ADMIN,
  ],
})
export class RateLimitModule implements OnModuleInit {
  /**
   * What a product plugs into the lock: named cost functions (a slice's `cost: <name>`) and subject
   * extractors per dimension. Import it in the product's module; it works whether or not the lock
   * is installed. See docs/rate-limit.md#extension-points.
   */
  static forFeature(feature: RateLimitFeature): DynamicModule {
    return RateLimitFeatureModule.register(feature);
  }

  constructor(
    private readonly chain: LockChain,
    private readonly lock: RateLimitLock,
    private readonly health: HealthRegistry,
    private readonly peers: RateLimitPeers,
    private readonly redis: RedisService,
    private readonly load: LoadMonitor,
    private readonly door: FrontDoor,
    private readonly front: RateLimitFrontDoor,
    private readonly shedFirst: ShedFirst,
    private readonly taps: ResponseTaps,
  ) {}

  onModuleInit(): void {
    this.chain.register(this.lock);
    // Known refusals (bans, empty per-address buckets) answered before the body and the router.
    this.door.add(this.front.check);
    // Addresses answered 401 become suspects, shed first under own-health pressure (front/shed-first.ts).
    if (this.shedFirst.classes.includes('suspect')) this.taps.add(this.shedFirst.observe);
    this.health.register('rateLimit', storeHealth(this.redis, this.peers), { optional: true });
    this.health.register('load', loadHealth(this.load), { optional: true });
  }
}

import { Module, OnModuleInit } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { RAMPART_CONFIG } from '../../config/config.constants.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { RedisService } from '../../redis/redis.service.js';
import { RateLimitLock } from './rate-limit.lock.js';
import { RATE_LIMIT_SETTINGS, rateLimitSettings } from './rate-limit.settings.js';
import { RateLimitPeers } from './limiter/rate-limit-peers.service.js';
import { RateLimiter } from './limiter/rate-limiter.service.js';

/** Lock 2: multi-dimensional rate limits decided atomically (one Redis call per request). */
@Module({
  providers: [
    {
      provide: RATE_LIMIT_SETTINGS,
      useFactory: rateLimitSettings,
      inject: [RAMPART_CONFIG] as const,
    },
    RateLimitPeers,
    RateLimiter,
    RateLimitLock,
  ],
  exports: [RateLimitLock, RATE_LIMIT_SETTINGS],
})
export class RateLimitModule implements OnModuleInit {
  constructor(
    private readonly chain: LockChain,
    private readonly lock: RateLimitLock,
    private readonly health: HealthRegistry,
    private readonly peers: RateLimitPeers,
    private readonly redis: RedisService,
  ) {}

  onModuleInit(): void {
    this.chain.register(this.lock);
    // Optional check: with Redis down the service stays ready (policies apply their failMode) but shows degraded.
    this.health.register(
      'rateLimit',
      async () => {
        if (this.redis.enabled && !this.redis.ready)
          throw new Error('redis unavailable: policies decide by their failMode');
        return {
          store: this.redis.enabled ? 'redis' : 'memory',
          liveInstances: this.peers.liveInstances,
          keySecret: this.peers.sharedSecret ? 'ready' : 'pending',
        };
      },
      { optional: true },
    );
  }
}

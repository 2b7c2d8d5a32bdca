import { Module, OnModuleInit } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { RAMPART_CONFIG } from '../../config/config.constants.js';
import { RateLimitLock } from './rate-limit.lock.js';
import { RATE_LIMIT_SETTINGS, rateLimitSettings } from './rate-limit.settings.js';
import { RateLimitPeers } from './rate-limit-peers.service.js';
import { RateLimiter } from './rate-limiter.service.js';

/** Lock 2: multi-dimensional rate limits decided atomically (one Redis call per request). */
@Module({
  providers: [
    { provide: RATE_LIMIT_SETTINGS, useFactory: rateLimitSettings, inject: [RAMPART_CONFIG] as const },
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
  ) {}

  onModuleInit(): void {
    this.chain.register(this.lock);
  }
}


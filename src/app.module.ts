import { DynamicModule, Module, ModuleMetadata, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AdminModule } from './admin/admin.module.js';
import { RiskSignalsModule } from './app.risk-signals.js';
import { ChainModule } from './chain/chain.module.js';
import { CommonModule } from './common/common.module.js';
import { ProblemFilter } from './http/problem.filter.js';
import { ConfigModule } from './config/config.module.js';
import type { RampartConfig } from './config/config.types.js';
import { HealthModule } from './health/health.module.js';
import { InferenceModule } from './inference/inference.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { ProbeModule } from './probe/probe.module.js';
import { RedisModule } from './redis/redis.module.js';
import { SearchModule } from './search/search.module.js';
import { SessionKeysModule } from './session-keys/session-keys.module.js';
import { TelegramModule } from './telegram/telegram.module.js';
import { CacheShieldModule } from './locks/cache-shield/cache-shield.module.js';
import { CircuitBreakerModule } from './locks/circuit-breaker/circuit-breaker.module.js';
import { RateLimitModule } from './locks/rate-limit/rate-limit.module.js';
import { SignatureModule } from './locks/signature/signature.module.js';

/** Modules of the lock chain, in no particular order: the order lives in chain/lock-order.ts. */
export const LOCK_MODULES: NonNullable<ModuleMetadata['imports']> = [
  RateLimitModule,
  SignatureModule,
  CacheShieldModule,
  CircuitBreakerModule,
];

@Module({})
export class AppModule {
  /**
   * `extra` lets tests add modules to a real app; `locks` replaces the lock
   * modules (tests of the chain itself install small test locks instead).
   */
  static forRoot(
    config: RampartConfig,
    extra: NonNullable<ModuleMetadata['imports']> = [],
    locks: NonNullable<ModuleMetadata['imports']> = LOCK_MODULES,
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        CommonModule,
        MetricsModule.forRoot({ token: config.metricsToken }),
        RedisModule,
        ChainModule,
        ...locks,
        HealthModule,
        SearchModule,
        InferenceModule,
        TelegramModule,
        ProbeModule,
        SessionKeysModule,
        AdminModule,
        RiskSignalsModule,
        ...extra,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({
            whitelist: true,
            transform: true,
            forbidUnknownValues: true,
            stopAtFirstError: false,
          }),
        },
      ],
    };
  }
}

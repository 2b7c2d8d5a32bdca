import { DynamicModule, Module } from '@nestjs/common';
import { CommonModule } from '../../common/common.module.js';
import { ConfigModule } from '../../config/config.module.js';
import type { RampartConfig } from '../../config/config.types.js';
import { HealthModule } from '../../health/health.module.js';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { RedisModule } from '../../redis/redis.module.js';
import { OutboundCoreModule } from './outbound.module.js';

/** A process that only sends (`npm run worker`): config, Redis, the sender's stores and its worker. */
@Module({})
export class OutboundWorkerModule {
  static forRoot(config: RampartConfig): DynamicModule {
    return {
      module: OutboundWorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        CommonModule,
        MetricsModule.forRoot({ token: config.metricsToken }),
        RedisModule,
        HealthModule,
        OutboundCoreModule,
      ],
    };
  }
}

import { Global, Inject, Module, OnModuleInit } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RAMPART_CONFIG } from '../config/config.constants.js';
import type { RampartConfig } from '../config/config.types.js';
import { bearerMatcher } from '../metrics/metrics-token.guard.js';
import { RedisService } from '../redis/redis.service.js';
import { HealthController } from './health.controller.js';
import { HealthRegistry } from './health-registry.service.js';

@Global()
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [HealthRegistry],
  exports: [HealthRegistry],
})
export class HealthModule implements OnModuleInit {
  constructor(
    private readonly registry: HealthRegistry,
    private readonly redis: RedisService,
    @Inject(RAMPART_CONFIG) private readonly config: RampartConfig,
  ) {}

  onModuleInit(): void {
    this.registry.allowDetail(bearerMatcher(this.config.metricsToken));
    if (!this.redis.enabled) return;
    this.registry.registerArming('redis', () => ({
      pending: this.redis.scriptsLoaded ? [] : ['lua scripts not loaded yet'],
    }));
    this.registry.register('redis', async () => {
      const t0 = performance.now();
      await this.redis.script('ping', [], ['health']);
      return {
        mode: this.redis.mode,
        pingMs: Math.round((performance.now() - t0) * 100) / 100,
      };
    });
  }
}

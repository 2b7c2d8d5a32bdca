import { DynamicModule, Global, Module } from '@nestjs/common';
import { METRICS_TOKEN, MetricsTokenGuard } from './metrics-token.guard.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus metrics; `/metrics` asks for a bearer token when one is given. */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(opts: { token?: string } = {}): DynamicModule {
    return {
      module: MetricsModule,
      controllers: [MetricsController],
      providers: [
        MetricsService,
        MetricsTokenGuard,
        { provide: METRICS_TOKEN, useValue: opts.token },
      ],
      exports: [MetricsService],
    };
  }
}

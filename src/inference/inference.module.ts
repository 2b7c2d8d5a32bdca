import { Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { RAMPART_CONFIG } from '../config/config.constants.js';
import type { RampartConfig } from '../config/config.types.js';
import { HealthRegistry } from '../health/health-registry.service.js';
import { RateLimitModule } from '../locks/rate-limit/rate-limit.module.js';
import { inferenceCost } from './inference-cost.js';
import { InferenceController } from './inference.controller.js';
import { INFERENCE_BACKEND, InferenceBackend } from './inference-backend.js';
import { InferenceService } from './inference.service.js';
import { LocalModelBackend } from './local/local-model.backend.js';
import { UpstreamBackend } from './upstream/upstream.backend.js';

/** The upstream proxy when INFERENCE_UPSTREAM_URL is set, else the built-in demo model. */
export function createInferenceBackend(config: RampartConfig): InferenceBackend {
  const { upstreamUrl } = config.inference;
  return upstreamUrl
    ? new UpstreamBackend({ ...config.inference, upstreamUrl })
    : new LocalModelBackend();
}

/**
 * `POST /v1/inference` behind `@Protect('inference')`, its backend, its
 * rate-limit cost function (`cost: inference`: by `max_tokens` bands), and its
 * readiness check. An upstream that fails its check makes the service
 * `degraded`, not unready: every instance shares the same upstream, so
 * pulling them all out of rotation would also take search and the circuit
 * breaker's fast answers down with it.
 */
@Module({
  imports: [RateLimitModule.forFeature({ costs: { inference: (req) => inferenceCost(req.body) } })],
  controllers: [InferenceController],
  providers: [
    { provide: INFERENCE_BACKEND, inject: [RAMPART_CONFIG], useFactory: createInferenceBackend },
    InferenceService,
  ],
  exports: [INFERENCE_BACKEND],
})
export class InferenceModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(INFERENCE_BACKEND) private readonly backend: InferenceBackend,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.health.register('inference', (signal) => this.backend.health(signal), {
      optional: this.backend.kind === 'upstream',
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backend.close?.();
  }
}

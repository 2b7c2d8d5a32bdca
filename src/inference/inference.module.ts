import { Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CLOCK, type Clock } from '../common/clock.js';
import { ProblemStyles } from '../common/problem-styles.js';
import { RAMPART_CONFIG } from '../config/config.constants.js';
import type { RampartConfig } from '../config/config.types.js';
import { HealthRegistry } from '../health/health-registry.service.js';
import { CacheShieldModule } from '../locks/cache-shield/cache-shield.module.js';
import { RateLimitModule } from '../locks/rate-limit/rate-limit.module.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { inferenceCost } from './inference-cost.js';
import { CompletionCacheModule } from './cache/completion-cache.module.js';
import { COMPLETION_KEY_SOURCE, completionKeySource } from './cache/completion-key-source.js';
import { CompletionRecorder } from './cache/completion-recorder.js';
import { inferenceTokens, setTokenSafety } from './tokens/token-ask.js';
import { modelPrices, setModelPrices } from './tokens/model-prices.js';
import { warmTokenizer } from './tokens/token-count.js';
import { InferenceController } from './inference.controller.js';
import { INFERENCE_BACKEND, InferenceBackend } from './inference-backend.js';
import { InferenceService } from './inference.service.js';
import { SseWaitNotice } from './sse-wait-notice.js';
import { BREAKER_WAIT_NOTICE } from '../locks/circuit-breaker/wait-notice.js';
import { LocalModelBackend } from './local/local-model.backend.js';
import { MODELS_KEY_SOURCE, modelsKeySource } from './models/models-key-source.js';
import { ModelsController } from './models/models.controller.js';
import { OPENAI_PATHS, OPENAI_PROBLEM_STYLE } from './openai-problem-style.js';
import { createModelRouter } from './routing/model-router.factory.js';
import { modelRoutes } from './routing/model-routes.settings.js';
import { UpstreamBackend } from './upstream/upstream.backend.js';

/**
 * The upstream proxy when INFERENCE_UPSTREAM_URL is set, else the built-in demo model; with
 * model aliases in CONFIG_FILE (`inference.models`), the model router in front of it.
 */
export function createInferenceBackend(
  config: RampartConfig,
  modules?: ModuleRef,
  metrics?: MetricsService,
  clock?: Clock,
): InferenceBackend {
  const { upstreamUrl } = config.inference;
  const base = upstreamUrl
    ? new UpstreamBackend({ ...config.inference, upstreamUrl })
    : new LocalModelBackend();
  const routes = modelRoutes(config);
  if (routes.size === 0 || !modules || !metrics || !clock) return base;
  return createModelRouter(routes, base, modules, metrics, clock);
}

/**
 * `POST /v1/chat/completions` (alias `POST /v1/inference`) behind
 * `@Protect('inference')` and `GET /v1/models` behind `@Protect('models')`,
 * their backend, the deterministic answer cache (key source `completion`), the rate-limit cost function (`cost: inference`: by
 * `max_tokens` bands) and token counter (`tokens: inference`: prompt tokens + `max_tokens`), the cache shield's `models` key source (the model list
 * is cached by the shield), OpenAI-style problem bodies on the paths the
 * official SDKs call, and the readiness check. An upstream that fails its
 * check makes the service `degraded`, not unready: every instance shares the
 * same upstream, so pulling them all out of rotation would also take search
 * and the circuit breaker's fast answers down with it.
 */
@Module({
  imports: [
    RateLimitModule.forFeature({
      costs: { inference: (req) => inferenceCost(req.body) },
      tokens: { inference: inferenceTokens },
    }),
    CompletionCacheModule,
    CacheShieldModule.forFeatureAsync({
      imports: [CompletionCacheModule],
      inject: [CompletionRecorder, RAMPART_CONFIG],
      useFactory: (recorder: CompletionRecorder, config: RampartConfig) => ({
        keySources: {
          [MODELS_KEY_SOURCE]: modelsKeySource,
          [COMPLETION_KEY_SOURCE]: completionKeySource(
            recorder,
            config.inference.cache.chargeTokens,
          ),
        },
      }),
    }),
  ],
  controllers: [InferenceController, ModelsController],
  providers: [
    {
      provide: INFERENCE_BACKEND,
      inject: [RAMPART_CONFIG, ModuleRef, MetricsService, CLOCK],
      useFactory: createInferenceBackend,
    },
    InferenceService,
    { provide: BREAKER_WAIT_NOTICE, useClass: SseWaitNotice },
  ],
  exports: [INFERENCE_BACKEND],
})
export class InferenceModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(INFERENCE_BACKEND) private readonly backend: InferenceBackend,
    private readonly health: HealthRegistry,
    private readonly problemStyles: ProblemStyles,
    @Inject(RAMPART_CONFIG) config: RampartConfig,
  ) {
    setTokenSafety(config.inference.tokenSafetyPercent);
    setModelPrices(modelPrices(config));
    warmTokenizer();
  }

  onModuleInit(): void {
    this.health.register('inference', (signal) => this.backend.health(signal), {
      optional: this.backend.kind === 'upstream',
    });
    this.problemStyles.register(OPENAI_PATHS, OPENAI_PROBLEM_STYLE);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backend.close?.();
  }
}

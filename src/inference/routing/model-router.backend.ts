import type { Counter } from 'prom-client';
import type { Clock } from '../../common/clock.js';
import type { LockMode } from '../../config/policy.types.js';
import type { BreakerRegistry } from '../../locks/circuit-breaker/breaker/breaker-registry.service.js';
import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import type { InferenceBackend, InferenceCall, SseSink } from '../inference-backend.js';
import type { ChatCompletion, ModelList } from '../openai.types.js';
import { UpstreamBackend } from '../upstream/upstream.backend.js';
import { attemptOrder } from './attempt-order.js';
import { routesHealth } from './routes-health.js';
import type { ModelRoutes, UpstreamRoute } from './model-routes.types.js';
import { RouteWalk, type Run } from './route-walk.js';
import { UpstreamCooldowns } from './upstream-cooldowns.js';

/** What the router needs from the app: time and randomness, lock 4's breakers (found late), its counter. */
export interface RouterDeps {
  clock: Clock;
  breakers: () => BreakerRegistry | undefined;
  /** The mode of the breaker slice of an upstream's policy (`off`: unguarded; `shadow`: never refused). */
  mode: (backend: string) => LockMode;
  fallbacks: Counter<'model' | 'upstream' | 'reason'>;
}

/**
 * Model aliases over several OpenAI-compatible upstreams each
 * (docs/inference.md#upstreams-per-model). A call naming an alias tries its
 * upstreams in {@link attemptOrder}, each through its own breaker and
 * bulkhead, and moves on — only before the first byte reached the client —
 * when the breaker refuses, the upstream answers 5xx or 429 (then it is
 * skipped by every call until its Retry-After), times out or cannot be
 * reached. Any other model name goes to `fallback` (the single upstream or
 * the demo model), as without aliases.
 */
export class ModelRouterBackend implements InferenceBackend {
  readonly kind = 'upstream';
  private readonly backends = new Map<string, UpstreamBackend>();
  private readonly cooldowns: UpstreamCooldowns;

  constructor(
    private readonly routes: ModelRoutes,
    private readonly fallback: InferenceBackend,
    private readonly deps: RouterDeps,
  ) {
    this.cooldowns = new UpstreamCooldowns(deps.clock);
    for (const ups of routes.values())
      for (const u of ups)
        this.backends.set(
          u.name,
          new UpstreamBackend({
            upstreamUrl: u.url,
            upstreamApiKey: u.apiKey,
            upstreamTimeoutMs: u.timeoutMs,
          }),
        );
  }

  complete(body: ChatCompletionRequestDto, call: InferenceCall): Promise<ChatCompletion> {
    const ups = this.routes.get(body.model);
    if (!ups) return this.fallback.complete(body, call);
    return this.route(body, ups, call, undefined, (b, u, c) => b.complete(u, c));
  }

  async stream(body: ChatCompletionRequestDto, call: InferenceCall, sink: SseSink): Promise<void> {
    const ups = this.routes.get(body.model);
    if (!ups) return this.fallback.stream(body, call, sink);
    await this.route(body, ups, call, sink, (b, u, c, s) => b.stream(u, c, s!));
  }

  /** The aliases (OpenAI's model list): what a caller may name; the upstreams stay hidden. */
  models(): Promise<ModelList> {
    const data = [...this.routes.keys()].map((id) => ({
      id,
      object: 'model' as const,
      created: 0,
      owned_by: 'rampart',
    }));
    return Promise.resolve({ object: 'list', data });
  }

  /** Each alias needs one upstream that answers its `GET /models`. */
  health(signal: AbortSignal): Promise<Record<string, unknown>> {
    return routesHealth(this.routes, this.backends, signal);
  }

  async close(): Promise<void> {
    await Promise.all([...this.backends.values()].map((b) => b.close()));
    await this.fallback.close?.();
  }

  private route<T>(
    body: ChatCompletionRequestDto,
    ups: readonly UpstreamRoute[],
    call: InferenceCall,
    sink: SseSink | undefined,
    run: Run<T>,
  ): Promise<T> {
    const alias = body.model;
    const walk = new RouteWalk<T>(
      {
        clock: this.deps.clock,
        registry: this.deps.breakers(),
        mode: this.deps.mode,
        cooldowns: this.cooldowns,
        backends: this.backends,
        fell: (u, reason) => this.deps.fallbacks.inc({ model: alias, upstream: u.name, reason }),
      },
      body,
      call,
      sink,
      run,
    );
    return walk.walk(attemptOrder(ups, () => this.deps.clock.random()));
  }
}

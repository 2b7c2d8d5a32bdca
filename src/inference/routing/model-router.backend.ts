import type { Counter } from 'prom-client';
import type { Clock } from '../../common/clock.js';
import type { LockMode } from '../../config/policy.types.js';
import type { BreakerRegistry } from '../../locks/circuit-breaker/breaker/breaker-registry.service.js';
import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import { InferenceError } from '../inference.errors.js';
import type { InferenceBackend, InferenceCall, SseSink } from '../inference-backend.js';
import type { ChatCompletion, ModelList } from '../openai.types.js';
import { UpstreamBackend } from '../upstream/upstream.backend.js';
import { attemptOrder } from './attempt-order.js';
import { Exhausted } from './exhausted.js';
import { fallbackReason, refusedByOpossum } from './fallback-reason.js';
import { routesHealth } from './routes-health.js';
import { AttemptSink, guardedAttempt } from './guarded-attempt.js';
import type { FallbackReason, ModelRoutes, UpstreamRoute } from './model-routes.types.js';
import { retryAfterMs, UpstreamCooldowns } from './upstream-cooldowns.js';

/** What the router needs from the app: time and randomness, lock 4's breakers (found late), its counter. */
export interface RouterDeps {
  clock: Clock;
  breakers: () => BreakerRegistry | undefined;
  /** The mode of the breaker slice of an upstream's policy (`off`: unguarded; `shadow`: never refused). */
  mode: (backend: string) => LockMode;
  fallbacks: Counter<'model' | 'upstream' | 'reason'>;
}

type Run<T> = (
  backend: UpstreamBackend,
  body: ChatCompletionRequestDto,
  call: InferenceCall,
  sink?: AttemptSink,
) => Promise<T>;

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

  private async route<T>(
    body: ChatCompletionRequestDto,
    ups: readonly UpstreamRoute[],
    call: InferenceCall,
    sink: SseSink | undefined,
    run: Run<T>,
  ): Promise<T> {
    const alias = body.model;
    const registry = this.deps.breakers();
    const seen = new Exhausted();
    const fell = (u: UpstreamRoute, reason: FallbackReason): void =>
      this.deps.fallbacks.inc({ model: alias, upstream: u.name, reason });
    for (const u of attemptOrder(ups, () => this.deps.clock.random())) {
      const wait = this.cooldowns.remainingMs(u.name);
      if (wait > 0) {
        seen.rateLimited(wait);
        fell(u, 'cooling_down');
        continue;
      }
      const mode = this.deps.mode(u.backend);
      const breaker = mode === 'off' ? undefined : registry?.get(u.backend);
      const ticket = breaker?.admit(call.tenant);
      if (ticket && !ticket.admit && mode === 'enforce') {
        seen.refused(ticket.reason, ticket.retryAfterMs);
        fell(u, ticket.reason === 'busy' ? 'busy' : 'circuit_open');
        continue;
      }
      const attemptSink = sink && new AttemptSink(sink);
      const upstreamBody = { ...body, model: u.model } as ChatCompletionRequestDto;
      const backend = this.backends.get(u.name)!;
      const go = (c: InferenceCall): Promise<T> => run(backend, upstreamBody, c, attemptSink);
      try {
        return await (breaker && ticket?.admit
          ? guardedAttempt(breaker, ticket, call, attemptSink, go)
          : go(call));
      } catch (err) {
        // After the first byte, on a caller gone or the route's own breaker timeout: no other upstream.
        if (sink?.opened || call.signal.aborted) throw err;
        if (refusedByOpossum(err)) {
          // The breaker's window refused after admission (opening meanwhile): nothing was called.
          seen.refused('open', u.timeoutMs);
          fell(u, 'circuit_open');
          continue;
        }
        if (!(err instanceof InferenceError)) throw err;
        const reason = fallbackReason(err);
        if (reason === undefined) throw err; // a 4xx: the request's own fault, the same everywhere
        if (reason === 'rate_limited') {
          const ms = retryAfterMs(err.headers['retry-after'], this.deps.clock.now());
          this.cooldowns.coolDown(u.name, ms);
          seen.rateLimited(ms);
        } else seen.failed(err);
        fell(u, reason);
      }
    }
    if (seen.onlyRefused) call.noBackendCalled?.();
    throw seen.error();
  }
}

import type { Clock } from '../../common/clock.js';
import type { LockMode } from '../../config/policy.types.js';
import type { BackendBreaker } from '../../locks/circuit-breaker/breaker/backend-breaker.js';
import type { BreakerRegistry } from '../../locks/circuit-breaker/breaker/breaker-registry.service.js';
import type { Admission } from '../../locks/circuit-breaker/circuit-breaker.types.js';
import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import { InferenceError } from '../inference.errors.js';
import type { InferenceCall, SseSink } from '../inference-backend.js';
import type { UpstreamBackend } from '../upstream/upstream.backend.js';
import { Exhausted } from './exhausted.js';
import { fallbackReason, refusedByOpossum } from './fallback-reason.js';
import { type BusyUpstream, firstFreeSlot } from './first-free-slot.js';
import { AttemptSink, guardedAttempt } from './guarded-attempt.js';
import type { FallbackReason, UpstreamRoute } from './model-routes.types.js';
import { retryAfterMs, type UpstreamCooldowns } from './upstream-cooldowns.js';

/** One attempt on one upstream (a JSON answer or a stream into `sink`). */
export type Run<T> = (
  backend: UpstreamBackend,
  body: ChatCompletionRequestDto,
  call: InferenceCall,
  sink?: AttemptSink,
) => Promise<T>;

/** What a walk needs of the router. */
export interface WalkDeps {
  clock: Clock;
  registry: BreakerRegistry | undefined;
  /** The mode of the breaker slice of an upstream's policy (`off`: unguarded; `shadow`: never refused). */
  mode: (backend: string) => LockMode;
  cooldowns: UpstreamCooldowns;
  backends: ReadonlyMap<string, UpstreamBackend>;
  /** Counts an upstream passed over, and why. */
  fell: (u: UpstreamRoute, reason: FallbackReason) => void;
}

type Ticket = Extract<Admission, { admit: true }>;

/** The attempt fell over: on to the next upstream. */
const NEXT = Symbol('next');
type Step<T> = T | typeof NEXT;

/**
 * One call's walk over the upstreams of a model alias, in attempt order, each through its own breaker and
 * bulkhead (docs/inference.md#upstreams-per-model). An upstream whose bulkhead is full is set aside; when no
 * other upstream answered, the call waits for the first slot freed on any of them (fair between apps, bounded by
 * each breaker's `maxWaitMs`, `maxWaiting`, `maxWaitingPerApp`: {@link firstFreeSlot}), runs there, and should that
 * attempt fall over, goes on through the others in order without waiting again.
 */
export class RouteWalk<T> {
  private readonly seen = new Exhausted();
  private readonly busy: BusyUpstream[] = [];

  constructor(
    private readonly d: WalkDeps,
    private readonly body: ChatCompletionRequestDto,
    private readonly call: InferenceCall,
    private readonly sink: SseSink | undefined,
    private readonly run: Run<T>,
  ) {}

  async walk(order: readonly UpstreamRoute[]): Promise<T> {
    for (const u of order) {
      const r = await this.tryUpstream(u, true);
      if (r !== NEXT) return r;
    }
    if (this.busy.length > 0) {
      const r = await this.afterWait();
      if (r !== NEXT) return r;
    }
    if (this.seen.onlyRefused) this.call.noBackendCalled?.();
    throw this.seen.error();
  }

  /** Every upstream left had its bulkhead full: the first slot freed, then the others in order. */
  private async afterWait(): Promise<Step<T>> {
    const busy = this.busy.splice(0);
    const first = await firstFreeSlot(busy, this.call.tenant, this.call.signal);
    if (!first.admit) {
      this.seen.refused(first.reason, first.retryAfterMs, first.queue);
      return NEXT;
    }
    const r = await this.attempt(first.up.u, first.up.breaker, first.ticket);
    if (r !== NEXT) return r;
    for (const { u } of busy) {
      if (u === first.up.u) continue;
      const next = await this.tryUpstream(u, false);
      if (next !== NEXT) return next;
    }
    return NEXT;
  }

  /** Skips an upstream cooling down after a 429 or refused by its breaker (a full one set aside to wait for). */
  private async tryUpstream(u: UpstreamRoute, mayWait: boolean): Promise<Step<T>> {
    const wait = this.d.cooldowns.remainingMs(u.name);
    if (wait > 0) {
      this.seen.rateLimited(wait);
      this.d.fell(u, 'cooling_down');
      return NEXT;
    }
    const mode = this.d.mode(u.backend);
    const breaker = mode === 'off' ? undefined : this.d.registry?.get(u.backend);
    const ticket = breaker?.admit(this.call.tenant);
    if (breaker && ticket && !ticket.admit && mode === 'enforce') {
      this.d.fell(u, ticket.reason === 'busy' ? 'busy' : 'circuit_open');
      if (ticket.reason === 'busy' && mayWait && breaker.options.maxWaitMs > 0)
        this.busy.push({ u, breaker });
      else this.seen.refused(ticket.reason, ticket.retryAfterMs);
      return NEXT;
    }
    return this.attempt(u, breaker, ticket?.admit ? ticket : undefined);
  }

  /** One attempt, guarded by the upstream's breaker when it admitted the call (`ticket`). */
  private async attempt(
    u: UpstreamRoute,
    breaker: BackendBreaker | undefined,
    ticket: Ticket | undefined,
  ): Promise<Step<T>> {
    const { call, sink } = this;
    const attemptSink = sink && new AttemptSink(sink);
    const upstreamBody = { ...this.body, model: u.model } as ChatCompletionRequestDto;
    const backend = this.d.backends.get(u.name)!;
    const go = (c: InferenceCall): Promise<T> => this.run(backend, upstreamBody, c, attemptSink);
    try {
      return await (breaker && ticket
        ? guardedAttempt(breaker, ticket, call, attemptSink, go)
        : go(call));
    } catch (err) {
      // After the first byte, on a caller gone or the route's own breaker timeout: no other upstream.
      if (sink?.opened || call.signal.aborted) throw err;
      if (refusedByOpossum(err)) {
        // The breaker's window refused after admission (opening meanwhile): nothing was called.
        this.seen.refused('open', u.timeoutMs);
        this.d.fell(u, 'circuit_open');
        return NEXT;
      }
      if (!(err instanceof InferenceError)) throw err;
      const reason = fallbackReason(err);
      if (reason === undefined) throw err; // a 4xx: the request's own fault, the same everywhere
      if (reason === 'rate_limited') {
        const ms = retryAfterMs(err.headers['retry-after'], this.d.clock.now());
        this.d.cooldowns.coolDown(u.name, ms);
        this.seen.rateLimited(ms);
      } else this.seen.failed(err);
      this.d.fell(u, reason);
      return NEXT;
    }
  }
}

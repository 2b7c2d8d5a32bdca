import { Injectable } from '@nestjs/common';
import type { InterceptorLock, LockContext, Next } from '../../chain/lock.types.js';
import type { LockSlice, RoutePolicy } from '../../config/policy.types.js';
import { rawResponse, setReplyHeader } from '../../http/http-context.js';
import { resolveBackends } from './breaker/backend-plans.js';
import type { Admission, BackendBreaker } from './breaker/backend-breaker.js';
import { BreakerMetrics } from './circuit-breaker.metrics.js';
import { failureProblem, refusalProblem, timeoutProblem } from './circuit-breaker.problems.js';
import { BreakerRegistry } from './breaker/breaker-registry.service.js';
import { BreakerTimeoutError, classifyError } from './breaker/call-outcome.js';
import type { CircuitBreakerSlice } from './circuit-breaker.types.js';
import { validateBreakerSlice } from './circuit-breaker.validate.js';

type Refused = Extract<Admission, { admit: false }>;

/**
 * Lock 4 as the chain sees it: asks the backend's breaker, refuses (503 or a
 * stale result) or runs the handler with a fresh per-call AbortSignal in
 * `requestState(req).signal`, and maps what went wrong to 502 / 504.
 * Shadow mode runs every call as is and only counts.
 */
@Injectable()
export class CircuitBreakerLock implements InterceptorLock<CircuitBreakerSlice> {
  readonly name = 'circuitBreaker' as const;
  readonly stage = 'interceptor' as const;

  constructor(
    private readonly registry: BreakerRegistry,
    private readonly metrics: BreakerMetrics,
  ) {}

  validateSlice(slice: LockSlice, path: string): string[] {
    return validateBreakerSlice(slice, path);
  }

  validatePolicies(policies: Record<string, RoutePolicy>): string[] {
    return resolveBackends(policies).problems;
  }

  /** Every problem of the circuitBreaker slices of a policy set (slices, then ownership). */
  problems(policies: Record<string, RoutePolicy>): string[] {
    const problems = Object.entries(policies).flatMap(([name, p]) => {
      const slice = p?.locks?.circuitBreaker;
      return slice ? this.validateSlice(slice, `policies.${name}.locks.circuitBreaker`) : [];
    });
    return problems.length > 0 ? problems : this.validatePolicies(policies);
  }

  onPolicies(policies: Record<string, RoutePolicy>): void {
    this.registry.apply(policies);
  }

  async around(ctx: LockContext, slice: CircuitBreakerSlice, next: Next): Promise<unknown> {
    const breaker = this.registry.get(slice.backend ?? '');
    if (!breaker) return next();
    const shadow = ctx.mode === 'shadow';
    const ticket = breaker.admit();
    if (!ticket.admit) {
      this.metrics.rejected(breaker.backend, ctx.policyName, ticket.reason, ctx.mode);
      if (shadow) return next('shadow_rejected');
      return this.refuse(ctx, slice, breaker, ticket);
    }
    const ctl = new AbortController();
    const outer = ctx.state.signal;
    ctx.state.signal = outer ? AbortSignal.any([outer, ctl.signal]) : ctl.signal;
    const reply = rawResponse(ctx.reply);
    const guarded = breaker.guard(ticket, next, {
      abortOnTimeout: !shadow,
      committed: () => reply.headersSent,
      abort: (r) => ctl.abort(r),
    });
    if (shadow) return guarded.work ?? next();
    try {
      return await guarded.verdict;
    } catch (err) {
      throw this.answerFor(err, breaker, reply.headersSent);
    }
  }

  /** Refused: the cache shield's last answer when the slice allows and there is one, else 503. */
  private async refuse(
    ctx: LockContext,
    slice: CircuitBreakerSlice,
    breaker: BackendBreaker,
    ticket: Refused,
  ): Promise<unknown> {
    if (slice.stale === true && ctx.state.staleResult) {
      const stale = await ctx.state.staleResult().catch(() => undefined);
      if (stale !== undefined) {
        setReplyHeader(ctx.reply, 'Rampart-Breaker', `${ticket.reason};stale`);
        this.metrics.staleServed(breaker.backend, ctx.policyName);
        return stale;
      }
    }
    throw refusalProblem(breaker.backend, ticket.reason, ticket.retryAfterMs);
  }

  private answerFor(err: unknown, breaker: BackendBreaker, committed: boolean): unknown {
    // A stream that already sent its headers ends its own way (an error event); nothing to rewrite.
    if (committed) return err;
    if (err instanceof BreakerTimeoutError) return timeoutProblem(breaker.backend, err.timeoutMs);
    if ((err as { code?: unknown } | null)?.code === 'EOPENBREAKER')
      return refusalProblem(breaker.backend, 'open', breaker.options.resetTimeoutMs);
    if ((err as { code?: unknown } | null)?.code === 'ESHUTDOWN')
      return refusalProblem(breaker.backend, 'busy', 1_000); // the app is shutting down
    const outcome = classifyError(err);
    return outcome === 'failure' ? failureProblem(breaker.backend, err) : err;
  }
}

import { HttpException, Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { ProblemException } from '../../common/problem.exception.js';
import type { InterceptorLock, LockContext, Next } from '../../chain/lock.types.js';
import type { LockSlice, RoutePolicy } from '../../config/policy.types.js';
import { rawResponse, setReplyHeader } from '../../http/http-context.js';
import type { BackendBreaker, Tenant } from './breaker/backend-breaker.js';
import type { QueuePlace } from './breaker/fair-queue.js';
import { BreakerRegistry } from './breaker/breaker-registry.service.js';
import { BeforeBackendError } from './breaker/call-outcome.js';
import { abortableCall } from './breaker/guarded-call.js';
import { BreakerMetrics } from './circuit-breaker.metrics.js';
import { callProblem, refusalProblem } from './circuit-breaker.problems.js';
import type { Admission, CircuitBreakerSlice } from './circuit-breaker.types.js';
import { validateBreakerPolicies, validateBreakerSlice } from './circuit-breaker.validate.js';
import { findWaitNotice, type WaitNotice } from './wait-notice.js';

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
  private readonly logger = new Logger('CircuitBreaker');

  constructor(
    private readonly registry: BreakerRegistry,
    private readonly metrics: BreakerMetrics,
    private readonly moduleRef: ModuleRef,
  ) {}

  private notice: WaitNotice | null | undefined = null;

  validateSlice(slice: LockSlice, path: string): string[] {
    return validateBreakerSlice(slice, path);
  }

  validatePolicies(policies: Record<string, RoutePolicy>): string[] {
    return validateBreakerPolicies(policies);
  }

  onPolicies(policies: Record<string, RoutePolicy>): void {
    this.registry.apply(policies);
  }

  async around(ctx: LockContext, slice: CircuitBreakerSlice, next: Next): Promise<unknown> {
    const breaker = this.registry.get(slice.backend ?? '');
    if (!breaker) return next();
    const shadow = ctx.mode === 'shadow';
    const tenant = { id: ctx.state.appId ?? '-', tier: ctx.state.tier };
    // A call that has to wait is told to the product's WaitNotice, which may start its answer (SSE comment).
    let noticed: WaitNotice | undefined;
    const queued = (place: QueuePlace): void => {
      if (this.notice === null) this.notice = findWaitNotice(this.moduleRef);
      noticed = this.notice;
      noticed?.queued(ctx.req, ctx.reply, place);
    };
    const ticket = await admission(ctx, breaker, tenant, queued);
    if (!ticket.admit) {
      this.metrics.rejected(breaker.backend, ctx.policyName, ticket.reason, ctx.mode);
      if (shadow) return next('shadow_rejected');
      const problem = refusalProblem(
        breaker.backend,
        ticket.reason,
        ticket.retryAfterMs,
        ticket.queue,
      );
      if (noticed && (await noticed.unanswered(ctx.req, ctx.reply, problem))) return undefined;
      return this.refuse(ctx, slice, breaker.backend, ticket, problem);
    }
    const call = abortableCall(ctx.state, ctx.reply, !shadow);
    const guarded = breaker.guard(ticket, next, call, tenant);
    if (shadow) return guarded.work ?? next();
    try {
      return await guarded.verdict;
    } catch (err) {
      const out = this.failure(err, breaker, call.committed());
      // A wait notice started the answer (SSE headers and a comment): the product ends it its way.
      if (noticed && !call.committed() && (await noticed.unanswered(ctx.req, ctx.reply, out)))
        return undefined;
      throw out;
    }
  }

  /** What the client gets for a call that failed (see callProblem); `committed`: the answer has begun. */
  private failure(err: unknown, breaker: BackendBreaker, committed: boolean): unknown {
    // Failed before the backend was called (validation, preparation): not the backend's, answered as is.
    if (err instanceof BeforeBackendError) return err.cause;
    if (
      !(err instanceof HttpException) &&
      !(err instanceof Error && err.name === 'BreakerTimeoutError')
    ) {
      this.logger.error({
        msg: 'backend call failed unexpectedly',
        backend: breaker.backend,
        err: errorLog(err),
      });
    }
    // A stream that already sent its headers ends its own way (an error event); nothing to rewrite.
    return committed ? err : callProblem(err, breaker.backend, breaker.options.resetTimeoutMs);
  }

  /** Refused: the cache shield's last answer when the slice allows and there is one, else 503. */
  private async refuse(
    ctx: LockContext,
    slice: CircuitBreakerSlice,
    backend: string,
    ticket: Extract<Admission, { admit: false }>,
    problem: ProblemException,
  ): Promise<unknown> {
    if (slice.stale === true && ctx.state.staleResult) {
      const stale = await ctx.state.staleResult().catch(() => undefined);
      if (stale !== undefined) {
        setReplyHeader(ctx.reply, 'Rampart-Breaker', `${ticket.reason};stale`);
        this.metrics.staleServed(backend, ctx.policyName);
        return stale;
      }
    }
    throw problem;
  }
}

/** The breaker's admission; with `maxWaitMs`, a call may wait for a slot until its client goes away. */
async function admission(
  ctx: LockContext,
  breaker: BackendBreaker,
  tenant: Tenant,
  onQueued: (place: QueuePlace) => void,
): Promise<Admission> {
  if (breaker.options.maxWaitMs <= 0) return breaker.admit(tenant);
  const res = rawResponse(ctx.reply);
  const gone = new AbortController();
  const onClose = (): void => gone.abort();
  res.once('close', onClose);
  try {
    return await breaker.admitWaiting(tenant, gone.signal, onQueued);
  } finally {
    res.off('close', onClose);
  }
}

function errorLog(err: unknown): unknown {
  return err instanceof Error
    ? { name: err.name, message: err.message, stack: err.stack }
    : String(err);
}

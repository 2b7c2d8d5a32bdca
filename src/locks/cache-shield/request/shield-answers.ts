import type { LockContext, Next } from '../../../chain/lock.types.js';
import { setReplyHeader } from '../../../http/http-context.js';
import type { CachedAnswer } from '../cache/answer-cache.js';
import { SHIELD_HEADER, type ShieldRequest } from '../cache-shield.key-source.js';
import type { ShieldMetrics, ShieldReason } from '../cache-shield.metrics.js';
import type { ShieldRoute } from '../cache-shield.types.js';

/** Returned by {@link ShieldAnswers.answer} when the route would refuse the request: the caller calls on. */
export const NOT_MINE = Symbol('not mine');

/**
 * How the shield answers a request itself, through the route's key source
 * (so the answer is the route's own), and how it counts what it did.
 */
export class ShieldAnswers {
  /** Shadow-mode requests the shield would have answered itself (told to the chain when it calls on). */
  private readonly wouldAnswer = new WeakSet<LockContext>();

  constructor(private readonly metrics: ShieldMetrics) {}

  /**
   * Answers the request itself — the cached body, or the route's "nothing
   * there" answer (a body, or its ProblemException thrown) — or returns
   * NOT_MINE when the route would refuse the request.
   */
  answer(
    ctx: LockContext,
    r: ShieldRequest,
    route: ShieldRoute,
    header: string,
    reason: ShieldReason,
    entry: Pick<CachedAnswer, 'body' | 'empty'> | undefined,
  ): unknown {
    const source = route.source;
    const request = source.accept(r);
    if (request === undefined) return NOT_MINE;
    this.count(ctx, reason);
    // Readable after the answer (e.g. by the app's risk signals), whatever the adapter does with headers.
    ctx.state.shieldAnswer = reason;
    // Before the answer: a key source may write the reply itself (found with the reply).
    setReplyHeader(ctx.reply, SHIELD_HEADER, header);
    return entry && !entry.empty
      ? source.found(request, entry.body, ctx.reply)
      : source.absent(request, header);
  }

  /** A cached body as the route would answer this request, or undefined when it would refuse the request. */
  render(ctx: LockContext, r: ShieldRequest, route: ShieldRoute, body: unknown): unknown {
    const request = route.source.accept(r);
    return request === undefined ? undefined : route.source.found(request, body, ctx.reply);
  }

  /** Counts a request the shield answered (enforce), or would have answered (shadow: told to the chain on calling on). */
  intercepted(ctx: LockContext, reason: ShieldReason): void {
    if (ctx.mode === 'enforce') {
      this.count(ctx, reason);
      return;
    }
    this.metrics.interceptions.inc({ policy: ctx.policyName, reason, mode: 'shadow' });
    this.wouldAnswer.add(ctx);
  }

  /** Calls on towards the backend. */
  forward(ctx: LockContext, next: Next): Promise<unknown> {
    this.metrics.forwarded.inc({ policy: ctx.policyName });
    return next(this.wouldAnswer.has(ctx) ? 'shadow_rejected' : 'allowed');
  }

  private count(ctx: LockContext, reason: ShieldReason): void {
    this.metrics.interceptions.inc({ policy: ctx.policyName, reason, mode: 'enforce' });
  }
}

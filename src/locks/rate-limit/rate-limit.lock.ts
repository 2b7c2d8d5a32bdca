import { Injectable } from '@nestjs/common';
import { thrown } from '../../chain/guard-refusal.js';
import type { GuardLock, GuardResult, LockContext } from '../../chain/lock.types.js';
import type { LockSlice } from '../../config/policy.types.js';
import { setReplyHeader } from '../../http/http-context.js';
import { BanCheck } from './bans/ban-check.js';
import { banProblem } from './bans/ban.problems.js';
import { RateLimitExtensions } from './extensions/rate-limit-extensions.js';
import { RateLimiter } from './limiter/rate-limiter.service.js';
import { Pacer } from './limiter/pacer.js';
import { ProblemException } from '../../common/problem.exception.js';
import { NodeHealthSource } from './load/health-source.js';
import { setAllowedHeaders } from './rate-limit.headers.js';
import { rateLimitProblem } from './rate-limit.problems.js';
import type { RateLimitSlice } from './core/rate-limit-slice.types.js';
import type { Verdict } from './limiter/verdicts.js';
import { validateSlice } from './rate-limit.validate.js';

/** Lock 2 as the chain sees it: a thin adapter from a verdict to headers or a problem. */
@Injectable()
export class RateLimitLock implements GuardLock<RateLimitSlice> {
  readonly name = 'rateLimit' as const;
  readonly stage = 'guard' as const;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly extensions: RateLimitExtensions,
    private readonly health: NodeHealthSource,
    private readonly bans: BanCheck,
    private readonly pacer: Pacer,
  ) {}

  /** Validated at boot (every product has registered by then) and by the admin API. */
  validateSlice(slice: LockSlice, path: string): string[] {
    return validateSlice(slice, path, this.extensions.costNames(), {
      attributes: this.extensions.attributeNames(),
      claims: this.extensions.claimNames(),
      tokens: this.extensions.tokenNames(),
    });
  }

  onPolicies(): void {
    this.limiter.policiesChanged();
  }

  takesClaim(ctx: LockContext, slice: RateLimitSlice): boolean {
    return this.limiter.takesHandoff(ctx, slice);
  }

  /**
   * Not an async function: a verdict decided at once (local refusal, no rule) costs no promise, and
   * one from the store costs one `then`. A refusal decided at once is returned (one throw fewer,
   * GuardLock.check); one from the store rejects the promise.
   */
  check(ctx: LockContext, slice: RateLimitSlice): GuardResult {
    // Bans first, from memory: a banned subject costs no Redis call (docs/rate-limit.md#bans).
    const ban = this.bans.match(ctx);
    if (ban) {
      // onLimit flag (Telegram): never an error; the product drops the request (state.banned).
      if (slice.onLimit === 'flag' && ctx.mode === 'enforce' && ctx.state.deferredBy === undefined)
        return void ((ctx.state.banned = true), this.bans.count(ctx, ban, 'dropped'));
      this.bans.count(ctx, ban, ctx.mode === 'enforce' ? 'refused' : 'shadow');
      // A fused nonce claim (state.claimHandoff) is not made: the request is refused and serves nothing,
      // so the ban costs no Redis call at all. Shadow mode serves it: the claim is made as usual.
      const h = ctx.state.claimHandoff;
      if (ctx.mode === 'enforce' && h !== undefined && h.result === undefined) h.result = 'fresh';
      return banProblem(ban, this.bans.now());
    }
    const v = this.limiter.decide(ctx, slice);
    return 'then' in v
      ? v.then((x) => thrown(this.apply(ctx, slice, x)))
      : this.apply(ctx, slice, v);
  }

  /** Headers of an allowed request, or its refusal (returned: thrown by the caller inside a promise). */
  private apply(ctx: LockContext, slice: RateLimitSlice, v: Verdict): GuardResult {
    switch (v.kind) {
      case 'allowed':
        if (v.waitMs !== undefined)
          return this.pace(ctx, v.waitMs).then((ms) => {
            this.health.track(ctx, ms);
            setAllowedHeaders(ctx.reply, v);
          });
        this.health.track(ctx, 0);
        setAllowedHeaders(ctx.reply, v);
        return;
      case 'duplicate':
        ctx.state.duplicate = true;
        return;
      case 'limited':
        // onLimit flag: never a 429; the product reads state.limited (shadow mode still only observes).
        // A request an earlier lock already refused (deferred) reaches no product: it gets the 429.
        if (
          slice.onLimit === 'flag' &&
          ctx.mode === 'enforce' &&
          ctx.state.deferredBy === undefined
        ) {
          ctx.state.limited = {
            retryAfterMs: v.retryAfterMs,
            rule: v.quota.name,
            notify: v.notify,
          };
          return;
        }
        // onLimit stale: the 429 waits for a cache's answer (the chain raises it if none comes).
        if (
          slice.onLimit === 'stale' &&
          ctx.mode === 'enforce' &&
          ctx.state.deferredBy === undefined
        ) {
          ctx.state.overQuota = rateLimitProblem(v);
          return;
        }
        return rateLimitProblem(v);
      case 'unavailable':
      case 'shed':
      case 'pacingFull':
        return rateLimitProblem(v);
    }
  }

  /**
   * Paced: the request's slot is reserved `ms` ahead; it goes on when that time has come (`x-ratelimit-paced-ms`
   * says how long it was held; returns the ms held). Shadow mode only observes: never held. A client gone meanwhile
   * gets nothing more.
   */
  private async pace(ctx: LockContext, ms: number): Promise<number> {
    const app = ctx.state.appId ?? '';
    if (ctx.mode !== 'enforce') return (this.pacer.leave('held', app), 0);
    setReplyHeader(ctx.reply, 'x-ratelimit-paced-ms', String(ms));
    if (!(await this.pacer.hold(ctx.reply, ms, ctx.policyName, app)))
      throw ProblemException.fast(499, 'client_closed', 'Client closed the connection', {
        detail: 'The client went away while its request waited for its rate-limit slot.',
      });
    return ms;
  }
}

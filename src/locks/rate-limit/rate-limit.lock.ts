import { Injectable } from '@nestjs/common';
import type { GuardLock, LockContext } from '../../chain/lock.types.js';
import type { LockSlice } from '../../config/policy.types.js';
import { ProblemException } from '../../common/problem.exception.js';
import { setReplyHeader } from '../../http/http-context.js';
import {
  rateLimitField,
  rateLimitPolicyField,
  retryAfterSeconds,
} from './limiter/rate-limit-headers.js';
import type { RateLimitSlice } from './rate-limit.types.js';
import { validateSlice } from './rate-limit.validate.js';
import { RateLimiter } from './limiter/rate-limiter.service.js';

/** Lock 2 as the chain sees it: a thin adapter from a verdict to headers or a problem. */
@Injectable()
export class RateLimitLock implements GuardLock<RateLimitSlice> {
  readonly name = 'rateLimit' as const;
  readonly stage = 'guard' as const;

  constructor(private readonly limiter: RateLimiter) {}

  validateSlice(slice: LockSlice, path: string): string[] {
    return validateSlice(slice, path);
  }

  onPolicies(): void {
    this.limiter.policiesChanged();
  }

  async check(ctx: LockContext, slice: RateLimitSlice): Promise<void> {
    const v = await this.limiter.decide(ctx, slice);
    switch (v.kind) {
      case 'allowed':
        if (v.quota) {
          setReplyHeader(ctx.reply, 'RateLimit-Policy', rateLimitPolicyField(v.quota));
          setReplyHeader(ctx.reply, 'RateLimit', rateLimitField(v.quota));
        }
        return;
      case 'limited': {
        const retryAfter = retryAfterSeconds(v.retryAfterMs);
        const quota = { ...v.quota, resetS: retryAfter };
        throw ProblemException.fast(429, 'rate_limited', 'Too many requests', {
          detail: `Rate limit "${quota.name}" exceeded; retry in ${retryAfter} s.`,
          headers: {
            'Retry-After': String(retryAfter),
            'RateLimit-Policy': rateLimitPolicyField(quota),
            RateLimit: rateLimitField(quota),
          },
          retry_after: retryAfter,
          policy: quota.name,
          'violated-policies': [quota.name],
        });
      }
      case 'unavailable':
        throw ProblemException.fast(503, 'rate_limit_unavailable', 'Rate limiting is unavailable', {
          detail: 'The rate-limit store cannot be reached and this route fails closed.',
          headers: { 'Retry-After': String(v.retryAfterS) },
          retry_after: v.retryAfterS,
        });
    }
  }
}

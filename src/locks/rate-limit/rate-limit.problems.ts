import type { ProblemCode } from '../../common/problem-codes.js';
import { ProblemException } from '../../common/problem.exception.js';
import type { Verdict } from './limiter/verdicts.js';
import {
  rateLimitField,
  rateLimitPolicyField,
  retryAfterSeconds,
  tokenHeaders,
} from './core/rate-limit-headers.js';

/** Longest Retry-After the official OpenAI SDKs wait for (Node); past it a token refusal says not to retry. */
const SDK_MAX_RETRY_S = 60;

/** Why the rate-limit lock refused a request: the stable `error` code of the answer. */
export type RateLimitErrorCode = Extract<
  ProblemCode,
  | 'rate_limited'
  | 'concurrency_limit'
  | 'token_budget'
  | 'rate_limit_unavailable'
  | 'load_shed'
  | 'pacing_full'
>;

/** A verdict that refuses. */
export type Refusal = Exclude<Verdict, { kind: 'allowed' } | { kind: 'duplicate' }>;

/**
 * The answer for a refused request, as problem+json: 429 `rate_limited` with
 * Retry-After and the blocking rule's RateLimit fields (`concurrency_limit` when that rule is a concurrency rule:
 * too many of the subject's requests in flight), or 503
 * `rate_limit_unavailable` when Redis cannot decide and the route fails closed, or 503 `load_shed` when the
 * service-wide load level is hard and the route is not critical (docs/quotas.md), or 503 `pacing_full` when a
 * paced rule would hold the request but `rateLimit.maxPaced` requests wait already (docs/rate-limit.md#paced-bursts).
 */
export function rateLimitProblem(v: Refusal): ProblemException {
  switch (v.kind) {
    case 'limited': {
      if (v.tokens) return tokenProblem(v);
      const tooMany: RateLimitErrorCode = 'concurrency_limit';
      const code: RateLimitErrorCode = v.concurrency ? tooMany : 'rate_limited';
      const retryAfter = retryAfterSeconds(v.retryAfterMs);
      const quota = { ...v.quota, resetS: retryAfter };
      return ProblemException.fast(429, code, 'Too many requests', {
        detail: v.concurrency
          ? `Too many requests in flight for "${quota.name}"; retry in ${retryAfter} s.`
          : `Rate limit "${quota.name}" exceeded; retry in ${retryAfter} s.`,
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
    case 'unavailable': {
      const code: RateLimitErrorCode = 'rate_limit_unavailable';
      return ProblemException.fast(503, code, 'Rate limiting is unavailable', {
        detail: 'The rate-limit store cannot be reached and this route fails closed.',
        headers: { 'Retry-After': String(v.retryAfterS) },
        retry_after: v.retryAfterS,
      });
    }
    case 'shed': {
      const code: RateLimitErrorCode = 'load_shed';
      return ProblemException.fast(503, code, 'Service under load', {
        detail: 'The service sheds non-critical requests at load level hard; retry later.',
        headers: { 'Retry-After': String(v.retryAfterS) },
        retry_after: v.retryAfterS,
      });
    }
    case 'pacingFull': {
      const code: RateLimitErrorCode = 'pacing_full';
      return ProblemException.fast(503, code, 'Too many requests waiting', {
        detail:
          'This request would wait for its rate-limit slot, but too many requests wait already; retry later.',
        headers: { 'Retry-After': String(v.retryAfterS) },
        retry_after: v.retryAfterS,
      });
    }
  }
}

/**
 * 429 `token_budget`: a token budget cannot hold this request's reservation. Retry-After is the end of the window;
 * past the SDKs' longest wait (60 s) `x-should-retry: false` stops their automatic retries.
 */
function tokenProblem(v: Extract<Refusal, { kind: 'limited' }>): ProblemException {
  const code: RateLimitErrorCode = 'token_budget';
  const retryAfter = retryAfterSeconds(v.retryAfterMs);
  const quota = { ...v.quota, resetS: retryAfter };
  return ProblemException.fast(429, code, 'Token budget exceeded', {
    detail: `Token budget "${quota.name}" cannot hold this request (${quota.remaining} tokens left of ${quota.limit}); retry in ${retryAfter} s.`,
    headers: {
      'Retry-After': String(retryAfter),
      'RateLimit-Policy': rateLimitPolicyField(quota),
      RateLimit: rateLimitField(quota),
      ...tokenHeaders(quota),
      ...(retryAfter > SDK_MAX_RETRY_S ? { 'x-should-retry': 'false' } : {}),
    },
    retry_after: retryAfter,
    policy: quota.name,
    'violated-policies': [quota.name],
  });
}

import { HttpException } from '@nestjs/common';
import type { ProblemCode } from '../../common/problem-codes.js';
import { ProblemException } from '../../common/problem.exception.js';
import { BreakerTimeoutError, classifyError } from './breaker/call-outcome.js';
import type { BreakerRefusal, QueueRefusal } from './circuit-breaker.types.js';

/**
 * The `error` codes the breaker answers with. 503 (`circuit_open`,
 * `backend_busy`): refused without calling the backend. 502 / 504
 * (`backend_error`, `backend_timeout`): the backend was called and failed.
 */
export type BreakerProblemCode = Extract<
  ProblemCode,
  'circuit_open' | 'backend_busy' | 'backend_timeout' | 'backend_error'
>;

type Extra = Parameters<typeof ProblemException.fast>[3];

/** The breaker's one problem factory: status and title per code. */
function breakerProblem(code: BreakerProblemCode, extra: Extra): ProblemException {
  switch (code) {
    case 'circuit_open':
      return ProblemException.fast(503, code, 'Circuit open', extra);
    case 'backend_busy':
      return ProblemException.fast(503, code, 'Backend busy', extra);
    case 'backend_timeout':
      return ProblemException.fast(504, code, 'Backend timed out', extra);
    case 'backend_error':
      return ProblemException.fast(502, code, 'Backend failed', extra);
  }
}

/** Retry-After in whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

const REASON_TEXT: Record<BreakerRefusal, string> = {
  open: 'is failing or too slow; calls are refused until the next probe',
  half_open: 'is being probed; calls are refused until the probes succeed',
  recovering: 'is recovering; only part of the traffic is let through for now',
  forced_open: 'is switched off by an operator',
  busy: 'has as many calls in flight as it may take',
};

const QUEUE_TEXT: Record<QueueRefusal['why'], string> = {
  full: 'and its wait queue is full',
  app_full: 'and your app has as many calls waiting as it may',
  timeout: 'and no slot was freed while the call waited',
};

/**
 * The breaker refused the call without touching the backend: 503
 * `circuit_open` (or `backend_busy` for a full bulkhead), with Retry-After.
 * Distinct from the backend-failed answers (502 `backend_error`, 504
 * `backend_timeout`), which mean the backend was called.
 */
export function refusalProblem(
  backend: string,
  reason: BreakerRefusal,
  retryAfterMs: number,
  queue?: QueueRefusal,
): ProblemException {
  const retryAfter = retryAfterSeconds(retryAfterMs);
  const why = queue ? ` ${QUEUE_TEXT[queue.why]}` : '';
  return breakerProblem(reason === 'busy' ? 'backend_busy' : 'circuit_open', {
    detail: `The ${backend} backend ${REASON_TEXT[reason]}${why}. Retry in ${retryAfter} s.`,
    headers: { 'Retry-After': String(retryAfter), 'Rampart-Breaker': reason },
    backend,
    state: reason,
    retry_after: retryAfter,
    ...(queue && { queue }),
  });
}

/** The breaker's timeout ran out and the call was aborted: 504. */
export function timeoutProblem(backend: string, timeoutMs: number): ProblemException {
  return breakerProblem('backend_timeout', {
    detail: `The ${backend} backend did not answer within ${timeoutMs} ms; the call was aborted.`,
    backend,
  });
}

/**
 * A backend failure while the circuit let the call through: 502. Errors that
 * already are 502 or 504 (e.g. inference `upstream_error`, `upstream_timeout`)
 * are passed on as they are; others (e.g. search `search_unavailable` 503,
 * unexpected errors) become `backend_error`, keeping their code as `cause`,
 * so that 503 always means "refused by the breaker".
 */
export function failureProblem(backend: string, err: unknown): HttpException {
  if (err instanceof HttpException && (err.getStatus() === 502 || err.getStatus() === 504))
    return err;
  const cause =
    err instanceof ProblemException
      ? err.problem.error
      : err instanceof HttpException
        ? `http_${err.getStatus()}`
        : 'unexpected_error';
  return breakerProblem('backend_error', {
    detail: `The ${backend} backend failed (${cause}).`,
    backend,
    cause,
  });
}

/**
 * What the client gets for a guarded call that threw: our timeout → 504,
 * opossum's own refusals → 503, a backend failure → 502 (see failureProblem),
 * anything else (client errors) unchanged. `resetTimeoutMs` is the Retry-After
 * of opossum's "open" refusal.
 */
export function callProblem(err: unknown, backend: string, resetTimeoutMs: number): unknown {
  if (err instanceof BreakerTimeoutError) return timeoutProblem(backend, err.timeoutMs);
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'EOPENBREAKER') return refusalProblem(backend, 'open', resetTimeoutMs);
  if (code === 'ESHUTDOWN') return refusalProblem(backend, 'busy', 1_000); // the app is shutting down
  return classifyError(err) === 'failure' ? failureProblem(backend, err) : err;
}

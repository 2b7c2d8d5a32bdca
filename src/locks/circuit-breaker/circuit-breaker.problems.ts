import { HttpException } from '@nestjs/common';
import { ProblemException } from '../../common/problem.exception.js';
import type { Refusal } from './recovery/recovery-gate.js';

/** Why the breaker itself answered: a refusal of the recovery gate, or a full bulkhead. */
export type BreakerRefusal = Refusal | 'busy';

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
): ProblemException {
  const retryAfter = retryAfterSeconds(retryAfterMs);
  const error = reason === 'busy' ? 'backend_busy' : 'circuit_open';
  return ProblemException.fast(503, error, reason === 'busy' ? 'Backend busy' : 'Circuit open', {
    detail: `The ${backend} backend ${REASON_TEXT[reason]}. Retry in ${retryAfter} s.`,
    headers: { 'Retry-After': String(retryAfter), 'Rampart-Breaker': reason },
    backend,
    state: reason,
    retry_after: retryAfter,
  });
}

/** The breaker's timeout ran out and the call was aborted: 504. */
export function timeoutProblem(backend: string, timeoutMs: number): ProblemException {
  return ProblemException.fast(504, 'backend_timeout', 'Backend timed out', {
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
  return ProblemException.fast(502, 'backend_error', 'Backend failed', {
    detail: `The ${backend} backend failed (${cause}).`,
    backend,
    cause,
  });
}

import { HttpException } from '@nestjs/common';
import { ProblemException } from '../common/problem.exception.js';

/**
 * Why an inference call failed, as the circuit breaker must see it:
 * - `rejected`: the upstream refused the request (4xx) — the caller's fault, not a backend failure;
 * - `failed`: upstream 5xx, connection refused or reset, or an answer that is not what was asked for;
 * - `timeout`: the upstream did not answer in time (or the breaker gave up and aborted the call);
 * - `client_closed`: the caller went away first — nobody's failure.
 */
export type InferenceFailureKind = 'rejected' | 'failed' | 'timeout' | 'client_closed';

/** A typed inference failure; the global filter renders it as problem+json. */
export class InferenceError extends ProblemException {
  constructor(
    readonly kind: InferenceFailureKind,
    status: number,
    error: string,
    title: string,
    extra: { detail?: string; headers?: Record<string, string>; [k: string]: unknown } = {},
  ) {
    super(status, error, title, extra);
  }
}

/** Upstream answered 4xx: the same status goes back to the caller. */
export function upstreamRejected(
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): InferenceError {
  return new InferenceError(
    'rejected',
    status,
    'upstream_rejected',
    'The inference upstream rejected the request',
    { detail, headers, upstream_status: status },
  );
}

/**
 * Every upstream of a model answered 429 or is still skipped after one
 * (docs/inference.md#upstreams-per-model): 429 with Retry-After, the
 * seconds until the first of them may be called again.
 */
export function upstreamRateLimited(retryAfterMs: number): InferenceError {
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new InferenceError(
    'rejected',
    429,
    'upstream_rate_limited',
    'Every upstream of the model is rate limited',
    {
      detail: `Every upstream of this model asked to be left alone for now. Retry in ${retryAfter} s.`,
      headers: { 'Retry-After': String(retryAfter) },
      retry_after: retryAfter,
    },
  );
}

/** Upstream 5xx, unreachable, reset, or an unusable answer: 502. */
export function upstreamFailed(detail: string, upstreamStatus?: number): InferenceError {
  const extra =
    upstreamStatus === undefined ? { detail } : { detail, upstream_status: upstreamStatus };
  return new InferenceError(
    'failed',
    502,
    'upstream_error',
    'The inference upstream failed',
    extra,
  );
}

/** No answer in time: 504. */
export function upstreamTimeout(detail: string): InferenceError {
  return new InferenceError(
    'timeout',
    504,
    'upstream_timeout',
    'The inference upstream timed out',
    { detail },
  );
}

/** The caller went away; 499 is only ever seen in logs and metrics. */
export function clientClosed(): InferenceError {
  return new InferenceError(
    'client_closed',
    499,
    'client_closed',
    'The client closed the connection',
  );
}

/**
 * True when an error thrown by an inference call should count as a failure
 * of the backend (for the circuit breaker): upstream 5xx, unreachable,
 * timeouts, and unexpected errors. Client errors — validation, upstream 4xx,
 * a caller that went away — are not backend failures.
 */
export function isBackendFailure(err: unknown): boolean {
  if (err instanceof InferenceError) return err.kind === 'failed' || err.kind === 'timeout';
  if (err instanceof HttpException) return err.getStatus() >= 500;
  return true;
}

/**
 * The error for a call whose signal was aborted: the client went away, or the
 * circuit breaker (or our own deadline) gave up on it — a timeout.
 */
export function abortedCall(clientGone: AbortSignal, detail: string): InferenceError {
  return clientGone.aborted ? clientClosed() : upstreamTimeout(detail);
}

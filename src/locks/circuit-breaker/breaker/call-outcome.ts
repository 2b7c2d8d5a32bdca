import { HttpException } from '@nestjs/common';
import type { CallOutcome } from '../circuit-breaker.types.js';

/**
 * A call that failed before the product started its backend call (while the
 * request was validated or prepared): never counted against the backend.
 * The lock answers with `cause`, as if no breaker were there.
 */
export class BeforeBackendError extends Error {
  constructor(override readonly cause: unknown) {
    super('the call failed before the backend was called');
    this.name = 'BeforeBackendError';
  }
}

/** The breaker gave up on a call (its `timeoutMs` ran out) and aborted it. */
export class BreakerTimeoutError extends Error {
  readonly code = 'EBREAKERTIMEOUT';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'BreakerTimeoutError';
  }
}

/**
 * Sorts an error thrown by a guarded call. Only backend failures count
 * against the backend: HTTP errors ≥ 500 (upstream 5xx or unreachable,
 * search backend down), our timeout, and anything unexpected. Client errors
 * (validation, upstream 4xx, item not found) prove the backend answered;
 * 499 means the caller went away, which says nothing about the backend.
 */
export function classifyError(err: unknown): Exclude<CallOutcome, 'success'> {
  if (err instanceof BreakerTimeoutError) return 'timeout';
  if (err instanceof BeforeBackendError) return 'client_error';
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 499) return 'client_gone';
    return status < 500 ? 'client_error' : 'failure';
  }
  return 'failure';
}

/** True for outcomes that count against the backend. */
export function isFailure(outcome: CallOutcome): boolean {
  return outcome === 'failure' || outcome === 'timeout';
}

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

/**
 * A call the breaker stopped to give its slot to an app within its fair share (`reclaimAfterMs`): it says nothing
 * about the backend (counted as a caller gone), and the lock answers with `cause`, the product's own error.
 */
export class SlotReclaimedError extends BeforeBackendError {
  constructor(cause: unknown) {
    super(cause);
    this.message = 'the call was stopped to give its slot to another app';
    this.name = 'SlotReclaimedError';
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
  if (err instanceof SlotReclaimedError) return 'client_gone';
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

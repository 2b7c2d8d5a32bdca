import type { ProblemException } from '../../common/problem.exception.js';
import { refusalProblem } from '../../locks/circuit-breaker/circuit-breaker.problems.js';
import type {
  BreakerRefusal,
  QueueRefusal,
} from '../../locks/circuit-breaker/circuit-breaker.types.js';
import { type InferenceError, upstreamRateLimited } from '../inference.errors.js';

/**
 * What one call met on the upstreams it could not use, and the answer when
 * none is left: the last failure (502/504: an upstream was called and
 * failed), else 429 `upstream_rate_limited` when any upstream answered 429
 * or is skipped after one, else 503 `circuit_open`/`backend_busy` (every
 * breaker refused; `backend_busy` with where the call stood when it waited
 * for a slot and got none), each with the shortest Retry-After met.
 */
export class Exhausted {
  private failure?: InferenceError;
  private limitedMs?: number;
  private refusal?: BreakerRefusal;
  private queue?: QueueRefusal;
  private waitMs = Number.POSITIVE_INFINITY;

  failed(err: InferenceError): void {
    this.failure = err;
  }

  rateLimited(ms: number): void {
    this.limitedMs = Math.min(this.limitedMs ?? ms, ms);
    this.waitMs = Math.min(this.waitMs, ms);
  }

  /** `queue`: the call waited for a slot of full bulkheads and got none; that says the most. */
  refused(reason: BreakerRefusal, retryAfterMs: number, queue?: QueueRefusal): void {
    if (queue) [this.refusal, this.queue] = ['busy', queue];
    else if (this.queue === undefined && (this.refusal ?? 'busy') === 'busy') this.refusal = reason;
    this.waitMs = Math.min(this.waitMs, retryAfterMs);
  }

  /** True when the answer is a refusal: no upstream was called by this call. */
  get onlyRefused(): boolean {
    return this.failure === undefined && this.limitedMs === undefined;
  }

  error(): InferenceError | ProblemException {
    if (this.failure) return this.failure;
    const wait = Number.isFinite(this.waitMs) ? this.waitMs : 1_000;
    if (this.limitedMs !== undefined) return upstreamRateLimited(wait);
    return refusalProblem('inference', this.refusal ?? 'open', wait, this.queue);
  }
}

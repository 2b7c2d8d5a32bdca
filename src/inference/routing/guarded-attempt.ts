import type { BackendBreaker } from '../../locks/circuit-breaker/breaker/backend-breaker.js';
import { BreakerTimeoutError } from '../../locks/circuit-breaker/breaker/call-outcome.js';
import type { Admission } from '../../locks/circuit-breaker/circuit-breaker.types.js';
import { upstreamTimeout } from '../inference.errors.js';
import type { InferenceCall, SseSink } from '../inference-backend.js';

type Ticket = Extract<Admission, { admit: true }>;

/**
 * A sink one attempt writes through: once the attempt is given up (its
 * breaker timed it out before the first byte), it can no longer open the
 * stream, so a late answer never follows the next upstream's.
 */
export class AttemptSink implements SseSink {
  abandoned = false;

  constructor(private readonly sink: SseSink) {}

  get opened(): boolean {
    return this.sink.opened;
  }

  open(): void {
    if (this.abandoned) throw upstreamTimeout('the attempt was given up before its first byte');
    this.sink.open();
  }

  write(data: string | Uint8Array): Promise<void> {
    return this.sink.write(data);
  }

  event(data: unknown): Promise<void> {
    return this.sink.event(data);
  }

  end(): Promise<void> {
    return this.sink.end();
  }
}

/**
 * Runs one attempt on one upstream through that upstream's breaker (already
 * admitted: `ticket`): counted in its window, holding a slot of its bulkhead
 * until the attempt settles, aborted when the breaker's timeout runs out
 * before the first byte (then a 504 `upstream_timeout`, which falls over).
 * `sink`: a stream's sink (a stream that opened is committed: no timeout, no fallback).
 */
export async function guardedAttempt<T>(
  breaker: BackendBreaker,
  ticket: Ticket,
  call: InferenceCall,
  sink: AttemptSink | undefined,
  run: (call: InferenceCall) => Promise<T>,
): Promise<T> {
  const ctl = new AbortController();
  let attemptDone: (() => void) | undefined;
  let attemptGone: (() => void) | undefined;
  const attempt: InferenceCall = {
    ...call,
    signal: AbortSignal.any([call.signal, ctl.signal]),
    // The upstream is done: this upstream's breaker and the route's both free the slot.
    backendDone: () => {
      attemptDone?.();
      call.backendDone?.();
    },
    // The stream ended early (its client gone, or cut): neither breaker counts it.
    callerGone: () => {
      attemptGone?.();
      call.callerGone?.();
    },
  };
  let called = false;
  const { verdict } = breaker.guard(
    ticket,
    () => {
      called = true;
      return run(attempt);
    },
    {
      abortOnTimeout: true,
      committed: () => sink?.opened ?? false,
      abort: (reason) => {
        if (sink) sink.abandoned = true;
        ctl.abort(reason);
      },
      backendCalled: () => called,
      onBackendDone: (done) => void (attemptDone = done),
      onCallerGone: (gone) => void (attemptGone = gone),
    },
    call.tenant,
  );
  try {
    return await verdict;
  } catch (err) {
    if (err instanceof BreakerTimeoutError)
      throw upstreamTimeout(`the upstream did not answer within ${err.timeoutMs} ms`);
    throw err;
  }
}

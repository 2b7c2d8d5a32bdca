import { type AnyReply, rawResponse } from '../../../http/http-context.js';
import type { RequestState } from '../../../http/request-state.js';
import { BeforeBackendError, BreakerTimeoutError } from './call-outcome.js';

/** How a guarded call is stopped when the breaker's timeout runs out. */
export interface GuardOptions {
  /** Abort the call when the timeout runs out (enforce); shadow mode only counts the timeout. */
  abortOnTimeout: boolean;
  /** True once the reply is committed (a stream sent its headers): the timeout no longer applies, the stream's own deadlines do. */
  committed(): boolean;
  /** Aborts this call's AbortController (the signal the handler passed to undici / the search query). */
  abort(reason: unknown): void;
  /** True once the product started its backend call (RequestState.backendCalled). */
  backendCalled(): boolean;
  /**
   * Hands the product `done`, to call once the backend has finished its work while the answer still goes to the
   * client (a stream's last upstream chunk received): the slot and the latency sample end there (RequestState.backendDone).
   */
  onBackendDone?(done: () => void): void;
  /**
   * Hands the product `gone`, to call when the answer ended early because its caller went away or the product cut
   * it (the backend unfinished): the call then settles as `client_gone`, not a success (RequestState.callerGone).
   */
  onCallerGone?(gone: () => void): void;
}

/** A call under guard, as BackendBreaker.guard() hands it back. */
export interface Guarded<T> {
  /** The handler's own promise; undefined when opossum refused before starting it. */
  work?: Promise<T>;
  /** The breaker's view: the handler's result, or its error, or a BreakerTimeoutError. */
  verdict: Promise<T>;
}

/**
 * Gives the call a fresh AbortSignal in `state.signal` (joined with the one
 * already there, if any), which the handler passes to undici / the search
 * query, and the GuardOptions that abort it.
 */
export function abortableCall(
  state: RequestState,
  reply: AnyReply,
  abortOnTimeout: boolean,
): GuardOptions {
  const ctl = new AbortController();
  const outer = state.signal;
  state.signal = outer ? AbortSignal.any([outer, ctl.signal]) : ctl.signal;
  const res = rawResponse(reply);
  state.backendCalled = false;
  state.backendDone = undefined;
  state.callerGone = undefined;
  // Headers already sent by a wait notice (an SSE comment while queued): committed once more bytes follow.
  const early = res.headersSent ? (res.socket?.bytesWritten ?? 0) : undefined;
  return {
    abortOnTimeout,
    committed: () =>
      early === undefined ? res.headersSent : (res.socket?.bytesWritten ?? 0) > early,
    abort: (r) => ctl.abort(r),
    backendCalled: () => state.backendCalled === true,
    onBackendDone: (done) => void (state.backendDone = done),
    onCallerGone: (gone) => void (state.callerGone = gone),
  };
}

/**
 * The handler's promise, or a BreakerTimeoutError (and an abort, in enforce
 * mode) when `timeoutMs` runs out first and the reply is not committed yet.
 */
export function withTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  opts: GuardOptions,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (opts.committed()) return;
      const err = new BreakerTimeoutError(timeoutMs);
      if (opts.abortOnTimeout)
        opts.abort(new DOMException(`circuit breaker: ${err.message}`, 'TimeoutError'));
      reject(err);
    }, timeoutMs);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(opts.backendCalled() ? (err as Error) : new BeforeBackendError(err));
      },
    );
  });
}

import type { Readable } from 'node:stream';

/**
 * The stop of one upstream stream. When the call's signal fires (the client went away, its stream was cut, or the
 * breaker gave up), the chunks already read off the upstream but not yet relayed (waiting in the response body
 * behind a slow write) are taken out first, so that the meter charges them as it charges relayed ones; then the
 * upstream request is aborted at once (its connection closes, so generation stops). What the upstream generates
 * after that close never reaches Rampart and cannot be charged (docs/inference.md#token-budgets).
 */
export class UpstreamStop {
  private readonly ctl = new AbortController();
  private body?: Readable;
  private taken: Buffer[] = [];

  constructor(private readonly callSignal: AbortSignal) {
    if (callSignal.aborted) this.ctl.abort(callSignal.reason);
    else callSignal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Aborts the upstream request: give it to the transport. */
  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** The body of the upstream's answer, once its headers came. */
  watch(body: Readable): void {
    this.body = body;
  }

  /** The chunks read off the upstream before the stop and not relayed (handed out once). */
  leftover(): Buffer[] {
    const t = this.taken;
    this.taken = [];
    return t;
  }

  /** The call is over: stops watching its signal (a stop already under way still aborts the request). */
  dispose(): void {
    this.callSignal.removeEventListener('abort', this.onAbort);
  }

  /**
   * At the end of this event-loop turn, not in the middle of it: the upstream's bytes that arrived with the client's
   * hang-up (the same poll of the sockets) are read and parsed first, then taken out with the rest and the request
   * aborted. Nothing waits on a timer: the upstream is closed before the next turn.
   */
  private readonly onAbort = (): void => {
    setImmediate(() => this.stop());
  };

  private stop(): void {
    const b = this.body;
    // Bounded by the body's high-water mark: the transport stops reading the socket past it.
    if (b && !b.destroyed)
      for (let c: unknown = b.read(); c !== null; c = b.read()) this.taken.push(c as Buffer);
    this.ctl.abort(this.callSignal.reason);
  }
}

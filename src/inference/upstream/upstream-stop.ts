import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { StopDrained } from '../inference-backend.js';

/** How long and how much a stopped stream is still read before its connection is destroyed. */
export interface StopDrain {
  /** Milliseconds from the half-close. */
  ms: number;
  /** Bytes read after the half-close. */
  bytes: number;
}

/**
 * The default drain: an upstream that stops at the half-close answers its end within a round trip; one that does
 * not (it ignores the half-close) is read for at most a second or 256 KiB (≈ 1 000 streamed chunks), then cut.
 */
export const STOP_DRAIN: StopDrain = { ms: 1_000, bytes: 256 * 1024 };

/**
 * The stop of one upstream stream (docs/inference.md#token-budgets). When the call's signal fires (the client went
 * away, its stream was cut, or the breaker gave up), the upstream is told to stop by a **half-close**: our side of
 * its connection ends (TCP FIN; the request was sent whole), which an HTTP/1.1 server reads as the client's close,
 * while everything it wrote before it saw that close still reaches us and is read (and metered) to the answer's end.
 * The read is bounded ({@link StopDrain}): past the time or the bytes, the request is aborted (the connection
 * destroyed). Before the answer's headers there is nothing to read: the request is aborted at once.
 */
export class UpstreamStop {
  private readonly ctl = new AbortController();
  private answer?: { body: Readable; socket: Socket };
  private timer?: NodeJS.Timeout;
  private late?: NodeJS.Immediate;
  /** The read of the answer is over (its end, its error, or our abort): nothing left to cut. */
  private over = false;
  private drained = 0;
  /** True once the connection was half-closed (it never goes back to the pool). */
  halfClosed = false;
  /** True when the read after the half-close was cut at the drain's bound (the upstream had not stopped yet). */
  private cut = false;

  constructor(
    private readonly callSignal: AbortSignal,
    private readonly drain: StopDrain = STOP_DRAIN,
    private readonly stopped?: (how: StopDrained) => void,
  ) {
    if (callSignal.aborted) this.ctl.abort(callSignal.reason);
    else callSignal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Aborts the upstream request (before its answer, or past the drain): give it to the transport. */
  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** The body of the upstream's answer and its connection, once its headers came. */
  watch(body: Readable, socket: Socket): void {
    this.answer = { body, socket };
  }

  /** Counts bytes read off the answer: past the drain's bytes after a half-close, the request is aborted. */
  read(bytes: number): void {
    if (!this.halfClosed) return;
    this.drained += bytes;
    if (this.drained > this.drain.bytes) this.abort();
  }

  /**
   * The call is over: stops watching its signal and the drain; a half-closed connection is destroyed, and the call
   * told whether the read after the half-close lasted until the upstream stopped (its answer's end, or its close of
   * the connection: `drained`) or was cut at the drain's bound (`cut`).
   */
  dispose(): void {
    this.callSignal.removeEventListener('abort', this.onAbort);
    this.ended();
    if (!this.halfClosed) return;
    this.answer?.socket.destroy();
    this.stopped?.(this.cut ? 'cut' : 'drained');
  }

  /** The read of the answer is over (it ended, failed, or was aborted): the drain's bound no longer applies. */
  ended(): void {
    this.over = true;
    clearTimeout(this.timer);
    clearImmediate(this.late);
  }

  /**
   * At the end of this event-loop turn, not in the middle of it: the upstream's bytes that arrived with the client's
   * hang-up are parsed first (the answer may be complete by then: nothing to stop).
   */
  private readonly onAbort = (): void => {
    setImmediate(() => this.stop());
  };

  private stop(): void {
    const a = this.answer;
    if (!a) return this.abort();
    // Read whole (the socket may be back in the pool already), or already gone: nothing to stop.
    if ((a.body as Readable & { complete?: boolean }).complete || a.body.destroyed) return;
    this.halfClosed = true;
    a.socket.end();
    // Past the time, the cut still waits for this turn's I/O: on a starved event loop the timer runs before the
    // socket's bytes that arrived meanwhile (the upstream's last chunks and its close) are read, and cutting then
    // would drop tokens the upstream sent in time. So the cut comes after the turn's poll phase (setImmediate).
    this.timer = setTimeout(() => (this.late = setImmediate(() => this.abort())), this.drain.ms);
  }

  private abort(): void {
    if (this.over) return;
    // Past the half-close, what the upstream writes from here on is never read: the drain was cut.
    if (this.halfClosed && !this.ctl.signal.aborted) this.cut = true;
    this.ctl.abort(this.callSignal.reason);
  }
}

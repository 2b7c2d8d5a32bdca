import type { ServerResponse } from 'node:http';
import { AnyReply, rawResponse } from '../http/http-context.js';
import type { ProblemBody } from '../common/problem.exception.js';
import type { SseSink } from './inference-backend.js';
import { upstreamTimeout } from './inference.errors.js';
import { openAiError } from './openai-problem-style.js';
import { openSseReply, serverClosing } from './sse-reply.js';

/** Why a stream was cut off: it ran past its maximum duration, or its client stopped reading. */
export type StreamCut = 'max_duration' | 'no_read';

/** The limits of one streamed answer (docs/inference.md#stream-limits), and who hears of a cut. */
export interface StreamLimits {
  /** Milliseconds from the first byte after which the stream is ended with an error event. */
  maxDurationMs: number;
  /** Milliseconds the client's socket may stay full (no `drain`) before the connection is cut. */
  drainTimeoutMs: number;
  /**
   * Bytes the relay may hold for a slow client before it stops reading the upstream (backpressure): an answer that
   * fits is read off the upstream at its own pace, so its breaker slot ends with its last chunk.
   */
  relayBytes: number;
  /** Called once on a cut, before the response closes: cancels the backend call (the client-gone path). */
  onCut(reason: StreamCut): void;
}

/**
 * A server-sent events answer written straight to the Node response, on either adapter. With limits, a stream
 * that runs past its maximum duration ends with an `upstream_timeout` error event, and a client that does not read
 * (its socket buffer stays full for the drain timeout) is cut off; either way the backend call is cancelled.
 */
export class SseResponse implements SseSink {
  private res?: ServerResponse;
  private timer?: NodeJS.Timeout;
  private cut?: StreamCut;

  constructor(
    private readonly reply: AnyReply,
    private readonly clientGone: AbortSignal,
    private readonly limits?: StreamLimits,
  ) {}

  get opened(): boolean {
    return this.res !== undefined;
  }

  open(): void {
    if (this.res) return;
    const res = openSseReply(this.reply);
    this.res = res;
    if (!this.limits) return;
    const timer = setTimeout(() => this.cutOff('max_duration'), this.limits.maxDurationMs);
    res.once('close', () => clearTimeout(timer));
  }

  async write(data: string | Uint8Array): Promise<void> {
    const res = this.res;
    if (!res) throw new Error('SseResponse.write before open');
    if (this.clientGone.aborted || res.destroyed || this.cut) return;
    // Below the relay bound the bytes wait in the response's buffer; above it we wait for the client.
    if (res.write(data) || res.writableLength <= (this.limits?.relayBytes ?? 0)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(this.timer);
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
      if (this.limits)
        this.timer = setTimeout(() => this.cutOff('no_read'), this.limits.drainTimeoutMs);
    });
  }

  /** Ends the stream at a limit and cancels the backend call; a client that does not read loses its connection. */
  private cutOff(reason: StreamCut): void {
    const res = this.res;
    if (!res || this.cut || res.writableFinished || res.destroyed) return;
    this.cut = reason;
    this.limits!.onCut(reason);
    // Ended already (the relay still holds bytes the client has not read): only the connection can go.
    if (reason === 'no_read' || res.writableEnded) {
      res.destroy();
      return;
    }
    const ms = this.limits!.maxDurationMs;
    const e = upstreamTimeout(`the stream ran past its maximum duration (${ms} ms)`);
    // The last words fit unless the client stopped reading too (then the connection goes).
    if (res.writableNeedDrain) res.destroy();
    else res.end(`data: ${JSON.stringify({ error: openAiError(e.problem) })}\n\n`);
  }

  /**
   * After end(), the relay's bytes still go to the client: one that takes none of them for the drain timeout is
   * cut off (`no_read`) as a full socket is while the stream runs (the max duration still applies too).
   */
  private watchFlush(res: ServerResponse): void {
    if (!this.limits || res.writableLength === 0) return;
    let left = res.writableLength;
    const check = setInterval(() => {
      if (res.writableLength < left) left = res.writableLength;
      else this.cutOff('no_read');
    }, this.limits.drainTimeoutMs);
    res.once('close', () => clearInterval(check));
  }

  event(data: unknown): Promise<void> {
    return this.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  end(): Promise<void> {
    const res = this.res ?? rawResponse(this.reply);
    if (res.writableEnded || res.destroyed) return Promise.resolve();
    const socket = res.socket; // detached from the response once it has finished
    this.watchFlush(res);
    return new Promise((resolve) => {
      res.once('close', () => resolve());
      res.end(() => {
        // During shutdown the framework sends no "Connection: close" for a reply it no longer
        // owns, so the idle keep-alive socket would hold the server open (72 s on fastify).
        if (socket && serverClosing(socket)) socket.end();
        resolve();
      });
    });
  }
}

/**
 * Ends a stream that already sent its headers after a failure: one OpenAI-style
 * error event, `data: {"error": {message, type, code, param}}` (OpenAI's SDKs
 * raise it as an APIError whose `code` is Rampart's code), then the end of the stream.
 */
export async function endWithError(sink: SseSink, err: { problem: ProblemBody }): Promise<void> {
  await sink.event({ error: openAiError(err.problem) });
  await sink.end();
}

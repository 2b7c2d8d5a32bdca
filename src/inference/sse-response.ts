import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AnyReply, rawResponse, takeOverReply } from '../http/http-context.js';
import type { ProblemBody } from '../common/problem.exception.js';
import type { SseSink } from './inference-backend.js';
import { upstreamTimeout } from './inference.errors.js';
import { openAiError } from './openai-problem-style.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Tells nginx-style proxies in front of Rampart not to buffer the stream.
  'x-accel-buffering': 'no',
};

/**
 * Takes over the reply and sends the SSE headers, once: a reply already opened (by the wait notice, which wrote
 * `: queued` while the call waited for a slot) is adopted as it is.
 */
export function openSseReply(reply: AnyReply): ServerResponse {
  const raw = rawResponse(reply);
  if (raw.headersSent) return raw;
  const res = takeOverReply(reply);
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  return res;
}

/** Why a stream was cut off: it ran past its maximum duration, or its client stopped reading. */
export type StreamCut = 'max_duration' | 'no_read';

/** The limits of one streamed answer (docs/inference.md#stream-limits), and who hears of a cut. */
export interface StreamLimits {
  /** Milliseconds from the first byte after which the stream is ended with an error event. */
  maxDurationMs: number;
  /** Milliseconds the client's socket may stay full (no `drain`) before the connection is cut. */
  drainTimeoutMs: number;
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
    if (res.write(data)) return;
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
    if (!res || this.cut || res.writableEnded || res.destroyed) return;
    this.cut = reason;
    this.limits!.onCut(reason);
    if (reason === 'no_read') {
      res.destroy();
      return;
    }
    const ms = this.limits!.maxDurationMs;
    const e = upstreamTimeout(`the stream ran past its maximum duration (${ms} ms)`);
    // The last words fit unless the client stopped reading too (then the connection goes).
    if (res.writableNeedDrain) res.destroy();
    else res.end(`data: ${JSON.stringify({ error: openAiError(e.problem) })}\n\n`);
  }

  event(data: unknown): Promise<void> {
    return this.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  end(): Promise<void> {
    const res = this.res ?? rawResponse(this.reply);
    if (res.writableEnded || res.destroyed) return Promise.resolve();
    const socket = res.socket; // detached from the response once it has finished
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

/** True once the HTTP server stopped listening (the app is shutting down). */
function serverClosing(socket: Socket): boolean {
  const server = (socket as Socket & { server?: Server }).server;
  return server !== undefined && !server.listening;
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

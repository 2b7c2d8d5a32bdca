import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AnyReply, rawResponse, takeOverReply } from '../http/http-context.js';
import type { ProblemBody } from '../common/problem.exception.js';
import type { SseSink } from './inference-backend.js';
import { openAiError } from './openai-problem-style.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Tells nginx-style proxies in front of Rampart not to buffer the stream.
  'x-accel-buffering': 'no',
};

/** A server-sent events answer written straight to the Node response, on either adapter. */
export class SseResponse implements SseSink {
  private res?: ServerResponse;

  constructor(
    private readonly reply: AnyReply,
    private readonly clientGone: AbortSignal,
  ) {}

  get opened(): boolean {
    return this.res !== undefined;
  }

  open(): void {
    if (this.res) return;
    const res = takeOverReply(this.reply);
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    this.res = res;
  }

  async write(data: string | Uint8Array): Promise<void> {
    const res = this.res;
    if (!res) throw new Error('SseResponse.write before open');
    if (this.clientGone.aborted || res.destroyed) return;
    if (res.write(data)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
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

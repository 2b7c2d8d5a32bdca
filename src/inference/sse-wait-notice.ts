import { Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { type AnyReply, type AnyRequest, rawResponse, requestState } from '../http/http-context.js';
import { toProblem } from '../http/problem.filter.js';
import type { WaitNotice } from '../locks/circuit-breaker/wait-notice.js';
import type { QueuePlace } from '../locks/circuit-breaker/breaker/fair-queue.js';
import { openAiError } from './openai-problem-style.js';
import { openSseReply } from './sse-reply.js';

/** The routes whose `stream: true` requests answer with server-sent events. */
const STREAM_ROUTES = new Set(['/v1/chat/completions', '/v1/inference']);

/**
 * The inference product's answer to the breaker's WaitNotice (docs/inference.md#waiting-for-a-slot): a streaming
 * request that has to wait for a slot gets its SSE headers and a first comment event, `: queued position=N
 * length=M`, at once, so the client sees life before its slot; the stream then goes on from there (SseResponse
 * adopts it). Refused after all (its wait ran out), it ends with one error event, as a failed stream does.
 */
@Injectable()
export class SseWaitNotice implements WaitNotice {
  /** Responses this notice opened (weak: a finished response is not kept). */
  private readonly opened = new WeakSet<ServerResponse>();

  queued(req: AnyRequest, reply: AnyReply, place: QueuePlace): void {
    if (!streaming(req)) return;
    try {
      const res = openSseReply(reply);
      this.opened.add(res);
      res.write(`: queued position=${place.position} length=${place.length}\n\n`);
    } catch {
      // The client went away meanwhile: its wait ends on the close, nothing to tell.
    }
  }

  async unanswered(_req: AnyRequest, reply: AnyReply, err: unknown): Promise<boolean> {
    const res = rawResponse(reply);
    if (!this.opened.has(res)) return false;
    if (res.writableEnded || res.destroyed) return true;
    const { problem } = toProblem(err);
    await new Promise<void>((resolve) => {
      res.once('close', () => resolve());
      res.end(`data: ${JSON.stringify({ error: openAiError(problem) })}\n\n`, () => resolve());
    });
    return true;
  }
}

function streaming(req: AnyRequest): boolean {
  const body = (req as { body?: { stream?: unknown } }).body;
  return body?.stream === true && STREAM_ROUTES.has(requestState(req).route ?? '');
}

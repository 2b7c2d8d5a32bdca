/**
 * The reply side of the adapter-neutral helper (http-context.ts): headers, the raw Node response, its
 * end, and taking the reply over, on both platform-express and platform-fastify.
 */
import type { ServerResponse } from 'node:http';

/** The reply object of either adapter (express Response or FastifyReply). */
export interface AnyReply {
  header?: (name: string, value: string) => unknown;
  setHeader?: (name: string, value: string | number | readonly string[]) => unknown;
  raw?: NodeJS.WritableStream & {
    setHeader(name: string, value: string | number | readonly string[]): unknown;
  };
}

/** Sets a response header on either adapter. */
export function setReplyHeader(reply: AnyReply, name: string, value: string): void {
  if (typeof reply.header === 'function') reply.header(name, value);
  else if (typeof reply.setHeader === 'function') reply.setHeader(name, value);
  else reply.raw?.setHeader(name, value);
}

/** The underlying Node response stream (for server-sent events). */
export function rawResponse(reply: AnyReply): ServerResponse {
  return (reply.raw ?? reply) as unknown as ServerResponse;
}

/**
 * Calls `fn` once when the response is over, on both adapters: the answer was sent, or the client went away
 * (the Node response emits `close` in both cases); at once when that has happened already.
 */
export function onReplyClosed(reply: AnyReply, fn: () => void): void {
  const res = rawResponse(reply);
  if (res.closed) fn();
  else res.once('close', fn);
}

/**
 * Takes the reply over from the framework so the caller writes the raw Node
 * response itself (server-sent events). Headers already set on the framework
 * reply (CORS, rate-limit headers…) are carried over; the framework sends
 * nothing more for this request (fastify: `reply.hijack()`; express writes
 * straight to the Node response anyway).
 */
export function takeOverReply(reply: AnyReply): ServerResponse {
  const res = rawResponse(reply);
  const fastify = reply as {
    hijack?: () => unknown;
    getHeaders?: () => Record<string, string | number | string[] | undefined>;
  };
  if (typeof fastify.hijack === 'function') {
    for (const [name, value] of Object.entries(fastify.getHeaders?.() ?? {})) {
      if (value !== undefined) res.setHeader(name, value);
    }
    fastify.hijack();
  }
  return res;
}

import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AnyReply, rawResponse, takeOverReply } from '../http/http-context.js';

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

/** True once the HTTP server stopped listening (the app is shutting down). */
export function serverClosing(socket: Socket): boolean {
  const server = (socket as Socket & { server?: Server }).server;
  return server !== undefined && !server.listening;
}

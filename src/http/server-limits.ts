import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TYPE_BASE } from '../common/problem.exception.js';
import type { ProblemCode } from '../common/problem-codes.js';

/** Limits every connection lives under, on both adapters (all milliseconds). */
export interface ServerLimits {
  /** Time to receive the request headers. */
  headersTimeoutMs: number;
  /** Time to receive the whole request (headers and body). */
  requestTimeoutMs: number;
  /** Longest silence while a request body is being received. */
  bodyIdleTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Open connections per instance; more are closed at once. */
  maxConnections: number;
}

/**
 * Options for `http.createServer`. Node enforces the header and request
 * timeouts on a periodic sweep; the sweep runs often enough here that a slow
 * client is cut off within about a second of its deadline.
 */
export function serverOptions(limits: ServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    // A missing Host is answered as problem+json by requireHost (missing-host.ts), not bare by Node.
    requireHostHeader: false,
  };
}

/** Applies the limits that can only be set on a created server. */
export function applyServerLimits(server: Server, limits: ServerLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

/** What Node's HTTP parser raised, as a status and a stable error code. */
function classify(err: NodeJS.ErrnoException): {
  status: number;
  error: ProblemCode;
  detail: string;
} {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      error: 'headers_too_large',
      detail: 'the request line and headers exceed 16 KB',
    };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      error: 'request_timeout',
      detail: 'the request was not received in time',
    };
  }
  return {
    status: 400,
    error: 'bad_request',
    detail: 'the request could not be parsed as HTTP/1.1',
  };
}

/**
 * Answers errors of Node's own HTTP parser (oversized headers, a request line
 * too long, invalid HTTP, a request that took too long) with problem+json and
 * closes the connection, on both adapters. Nothing of the request is echoed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const { status, error, detail } = classify(err);
  const body = JSON.stringify({
    type: PROBLEM_TYPE_BASE + error,
    title: STATUS_TEXT[status] ?? 'Bad Request',
    status,
    error,
    detail,
    request_id: randomUUID(),
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/**
 * Cuts off a request whose body goes silent for `ms` while it is being
 * received: a 408 problem+json when nothing was answered yet, then the
 * connection closes. The watch ends with the body. (A socket timeout would
 * not do: Node's server destroys a timed-out socket before anyone answers.)
 */
export function watchBodyIdle(
  req: IncomingMessage,
  res: ServerResponse,
  ms: number,
  requestId?: string,
): void {
  const socket = req.socket;
  const onIdle = (): void => {
    done();
    if (res.headersSent) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({
      type: PROBLEM_TYPE_BASE + 'request_timeout',
      title: 'Request Timeout',
      status: 408,
      error: 'request_timeout',
      detail: `the request body went silent for more than ${ms} ms`,
      request_id: requestId ?? randomUUID(),
    });
    res.writeHead(408, { 'content-type': 'application/problem+json', connection: 'close' });
    res.end(body, () => socket.destroy());
  };
  const timer = setTimeout(onIdle, ms);
  const onData = (): void => void timer.refresh();
  const done = (): void => {
    clearTimeout(timer);
    socket.off('data', onData);
  };
  socket.on('data', onData);
  req.once('end', done);
  req.once('close', done);
}

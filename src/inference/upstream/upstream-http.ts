import { Agent as HttpAgent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, Dispatcher, request } from 'undici';
import type { InferenceConfig } from '../../config/config.types.js';
import type { InferenceError } from '../inference.errors.js';
import { discard, readLimited } from './body.js';
import { statusError } from './upstream-errors.js';
import type { StopDrain } from './upstream-stop.js';

/** Largest upstream error body read (for its message), in bytes. */
const MAX_ERROR_BYTES = 64 * 1024;

/** What UpstreamHttp (and its backend) are built from. */
export type UpstreamOptions = Omit<InferenceConfig, 'stream' | 'tokenSafetyPercent' | 'cache'> & {
  upstreamUrl: string;
  /** How long and how much a stopped stream is still read (default: upstream-stop.ts). */
  stopDrain?: StopDrain;
};

/** One call to the upstream: its method, path under the base URL and what goes with it. */
export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** Path under INFERENCE_UPSTREAM_URL, e.g. `/chat/completions`. */
  path: string;
  /** `Accept` of the call. */
  accept: string;
  /** JSON text of the body (POST). */
  body?: string;
  signal: AbortSignal;
  /** Passed on as X-Request-Id. */
  requestId?: string;
}

/** An answer's status, headers and body, as both transports give them. */
export interface UpstreamAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** A streamed answer, with the connection it comes on (the stop half-closes it: upstream-stop.ts). */
export interface StreamAnswer extends UpstreamAnswer {
  socket: Socket;
}

/**
 * The transport to an OpenAI-compatible upstream, with our own credentials (Bearer INFERENCE_UPSTREAM_API_KEY; no
 * header of the caller is forwarded) and the typed error of a non-2xx answer. JSON calls go through a keep-alive
 * undici Agent; streamed calls through a keep-alive node:http(s) Agent, because a stopped stream is half-closed
 * (our side of its connection ends, the answer is still read) and undici hands out no socket (docs/stack.md).
 */
export class UpstreamHttp {
  /** The base URL without a trailing slash. */
  readonly base: string;
  private readonly agent: Agent;
  private readonly streams: HttpAgent;

  constructor(private readonly config: UpstreamOptions) {
    this.base = config.upstreamUrl.replace(/\/+$/, '');
    const backstop = config.upstreamTimeoutMs * 2;
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      connections: 256,
      headersTimeout: backstop,
      bodyTimeout: backstop,
      connect: { timeout: Math.min(config.upstreamTimeoutMs, 10_000) },
    });
    const Streams = this.base.startsWith('https:') ? HttpsAgent : HttpAgent;
    this.streams = new Streams({ keepAlive: true, maxSockets: 256 });
  }

  /** Sends one call; resolves with the response whatever its status. */
  send(r: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    return request(`${this.base}${r.path}`, {
      method: r.method,
      headers: this.headers(r),
      body: r.body,
      signal: r.signal,
      dispatcher: this.agent,
    });
  }

  /** Sends one streamed call (node:http); resolves with the response's head, whatever its status. */
  sendStream(r: UpstreamRequest): Promise<StreamAnswer> {
    const send = this.base.startsWith('https:') ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(`${this.base}${r.path}`, {
        method: r.method,
        headers: this.headers(r),
        agent: this.streams,
        signal: r.signal,
      });
      req.on('error', reject); // the first settles; later ones (after the answer came) have a listener too
      req.once('response', (res) =>
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headers,
          body: res,
          socket: res.socket,
        }),
      );
      req.end(r.body);
    });
  }

  /** The typed error for a non-2xx answer (a 4xx body is read for the upstream's message). */
  async failure(res: UpstreamAnswer): Promise<InferenceError> {
    let text = '';
    if (res.statusCode >= 400 && res.statusCode < 500) {
      text = (await readLimited(res.body, MAX_ERROR_BYTES).catch(() => Buffer.alloc(0))).toString(
        'utf8',
      );
    } else {
      discard(res.body);
    }
    return statusError(res.statusCode, res.headers, text, this.config.upstreamApiKey);
  }

  async close(): Promise<void> {
    this.streams.destroy();
    await this.agent.close();
  }

  private headers(r: UpstreamRequest): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: r.accept,
      'user-agent': 'rampart',
    };
    if (this.config.upstreamApiKey) headers.authorization = `Bearer ${this.config.upstreamApiKey}`;
    if (r.requestId) headers['x-request-id'] = r.requestId;
    return headers;
  }
}

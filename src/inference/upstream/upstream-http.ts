import { Agent, Dispatcher, request } from 'undici';
import type { InferenceConfig } from '../../config/config.types.js';
import type { InferenceError } from '../inference.errors.js';
import { discard, readLimited } from './body.js';
import { statusError } from './upstream-errors.js';

/** Largest upstream error body read (for its message), in bytes. */
const MAX_ERROR_BYTES = 64 * 1024;

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

/**
 * The transport to an OpenAI-compatible upstream: a keep-alive undici Agent,
 * our own credentials (Bearer INFERENCE_UPSTREAM_API_KEY; no header of the
 * caller is forwarded), and the typed error of a non-2xx answer.
 */
export class UpstreamHttp {
  /** The base URL without a trailing slash. */
  readonly base: string;
  private readonly agent: Agent;

  constructor(
    private readonly config: Omit<InferenceConfig, 'stream' | 'tokenSafetyPercent' | 'cache'> & {
      upstreamUrl: string;
    },
  ) {
    this.base = config.upstreamUrl.replace(/\/+$/, '');
    const backstop = config.upstreamTimeoutMs * 2;
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      connections: 256,
      headersTimeout: backstop,
      bodyTimeout: backstop,
      connect: { timeout: Math.min(config.upstreamTimeoutMs, 10_000) },
    });
  }

  /** Sends one call; resolves with the response whatever its status. */
  send(r: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: r.accept,
      'user-agent': 'rampart',
    };
    if (this.config.upstreamApiKey) headers.authorization = `Bearer ${this.config.upstreamApiKey}`;
    if (r.requestId) headers['x-request-id'] = r.requestId;
    return request(`${this.base}${r.path}`, {
      method: r.method,
      headers,
      body: r.body,
      signal: r.signal,
      dispatcher: this.agent,
    });
  }

  /** The typed error for a non-2xx answer (a 4xx body is read for the upstream's message). */
  async failure(res: Dispatcher.ResponseData): Promise<InferenceError> {
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

  close(): Promise<void> {
    return this.agent.close();
  }
}

import { Agent, Dispatcher, request } from 'undici';
import type { InferenceConfig } from '../../config/config.types.js';
import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import { upstreamFailed } from '../inference.errors.js';
import type { InferenceBackend, InferenceCall, SseSink } from '../inference-backend.js';
import type { ChatCompletion } from '../openai.types.js';
import { endWithError } from '../sse-response.js';
import { discard, readLimited } from './body.js';
import { Deadline } from './deadline.js';
import { statusError, transportError } from './upstream-errors.js';

/** Largest chat.completion accepted from the upstream, in bytes. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** Largest upstream error body read (for its message), in bytes. */
const MAX_ERROR_BYTES = 64 * 1024;

/**
 * Proxies to an OpenAI-compatible server (`<INFERENCE_UPSTREAM_URL>/chat/completions`)
 * over a keep-alive undici Agent. Only the validated request fields are sent;
 * no header of the caller is forwarded. INFERENCE_UPSTREAM_TIMEOUT_MS bounds
 * the whole answer of a JSON call, and for a stream the wait for the headers
 * and every gap between two chunks. The call's signal (client gone, circuit
 * breaker) aborts it too. Failures come out as typed InferenceErrors.
 */
export class UpstreamBackend implements InferenceBackend {
  readonly kind = 'upstream';
  private readonly base: string;
  private readonly agent: Agent;

  constructor(private readonly config: InferenceConfig & { upstreamUrl: string }) {
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

  async complete(body: ChatCompletionRequestDto, call: InferenceCall): Promise<ChatCompletion> {
    const deadline = new Deadline(this.config.upstreamTimeoutMs);
    try {
      const res = await this.post(body, call, deadline);
      if (res.statusCode < 200 || res.statusCode >= 300) throw await this.failure(res);
      const text = (await readLimited(res.body, MAX_ANSWER_BYTES)).toString('utf8');
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        throw upstreamFailed('the upstream answer is not valid JSON', res.statusCode);
      }
      if (
        typeof answer !== 'object' ||
        answer === null ||
        !Array.isArray((answer as { choices?: unknown }).choices)
      ) {
        throw upstreamFailed('the upstream answer is not a chat completion', res.statusCode);
      }
      return answer as ChatCompletion;
    } catch (err) {
      throw transportError(err, call, deadline);
    } finally {
      deadline.clear();
    }
  }

  async stream(body: ChatCompletionRequestDto, call: InferenceCall, sink: SseSink): Promise<void> {
    const deadline = new Deadline(this.config.upstreamTimeoutMs);
    try {
      const res = await this.post(body, call, deadline);
      if (res.statusCode !== 200) throw await this.failure(res);
      if (!String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        discard(res.body);
        throw upstreamFailed('the upstream did not answer with an event stream', res.statusCode);
      }
      deadline.touch();
      sink.open();
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        // The clock runs while we wait for the upstream, not while a slow client reads.
        deadline.pause();
        await sink.write(chunk);
        deadline.touch();
      }
      await sink.end();
    } catch (err) {
      const e = transportError(err, call, deadline);
      if (!sink.opened) throw e;
      if (e.kind === 'client_closed') return sink.end();
      await endWithError(sink, e);
      throw e;
    } finally {
      deadline.clear();
    }
  }

  async health(signal: AbortSignal): Promise<Record<string, unknown>> {
    const t0 = performance.now();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.base}/models`, {
        method: 'GET',
        headers: this.headers('application/json'),
        signal,
        dispatcher: this.agent,
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new Error(
        `upstream unreachable (${typeof code === 'string' ? code : 'network error'})`,
      );
    }
    const latencyMs = Math.round((performance.now() - t0) * 10) / 10;
    await res.body.dump();
    if (res.statusCode < 200 || res.statusCode >= 300)
      throw new Error(`upstream GET /models answered ${res.statusCode}`);
    return { backend: this.kind, upstream: new URL(this.base).origin, latencyMs };
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private post(
    body: ChatCompletionRequestDto,
    call: InferenceCall,
    deadline: Deadline,
  ): Promise<Dispatcher.ResponseData> {
    const headers = this.headers(body.stream ? 'text/event-stream' : 'application/json');
    if (call.requestId) headers['x-request-id'] = call.requestId;
    return request(`${this.base}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.any([call.signal, deadline.signal]),
      dispatcher: this.agent,
    });
  }

  private headers(accept: string): Record<string, string> {
    const h: Record<string, string> = {
      'content-type': 'application/json',
      accept,
      'user-agent': 'rampart',
    };
    if (this.config.upstreamApiKey) h.authorization = `Bearer ${this.config.upstreamApiKey}`;
    return h;
  }

  /** The typed error for a non-2xx answer (its body read for the upstream's message). */
  private async failure(res: Dispatcher.ResponseData) {
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
}

import type { Dispatcher } from 'undici';
import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import { upstreamFailed } from '../inference.errors.js';
import type { InferenceBackend, InferenceCall, SseSink } from '../inference-backend.js';
import type { ChatCompletion, ModelList } from '../openai.types.js';
import { endWithError } from '../sse-response.js';
import { discard, readLimited } from './body.js';
import { chatRequest, parseChatCompletion } from './chat-completion.js';
import { Deadline } from './deadline.js';
import { DoneWatch } from './done-watch.js';
import { parseModelList } from './model-list.js';
import { transportError } from './upstream-errors.js';
import { UpstreamHttp, type UpstreamOptions } from './upstream-http.js';
import { UpstreamStop } from './upstream-stop.js';

/** Largest chat.completion accepted from the upstream, in bytes. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** Largest model list accepted from the upstream, in bytes. */
const MAX_MODEL_LIST_BYTES = 1024 * 1024;

/**
 * Proxies to an OpenAI-compatible server (`<INFERENCE_UPSTREAM_URL>/chat/completions`
 * and `/models`) through {@link UpstreamHttp}. Only the validated request
 * fields are sent. INFERENCE_UPSTREAM_TIMEOUT_MS bounds the whole answer of a
 * JSON call, and for a stream the wait for the headers and every gap between
 * two chunks. The call's signal (client gone, circuit breaker) aborts it too.
 * Failures come out as typed InferenceErrors.
 */
export class UpstreamBackend implements InferenceBackend {
  readonly kind = 'upstream';
  private readonly http: UpstreamHttp;

  constructor(private readonly config: UpstreamOptions) {
    this.http = new UpstreamHttp(config);
  }

  async complete(body: ChatCompletionRequestDto, call: InferenceCall): Promise<ChatCompletion> {
    const deadline = new Deadline(this.config.upstreamTimeoutMs);
    try {
      const res = await this.http.send(chatRequest(body, call, deadline, call.signal));
      if (res.statusCode < 200 || res.statusCode >= 300) throw await this.http.failure(res);
      const text = (await readLimited(res.body, MAX_ANSWER_BYTES)).toString('utf8');
      return parseChatCompletion(text, res.statusCode);
    } catch (err) {
      throw transportError(err, call, deadline);
    } finally {
      deadline.clear();
    }
  }

  async stream(body: ChatCompletionRequestDto, call: InferenceCall, sink: SseSink): Promise<void> {
    const deadline = new Deadline(this.config.upstreamTimeoutMs);
    const stop = new UpstreamStop(call.signal, this.config.stopDrain, call.stopped);
    const ended = new DoneWatch();
    try {
      const res = await this.http.sendStream(chatRequest(body, call, deadline, stop.signal));
      if (res.statusCode !== 200) throw await this.http.failure(res);
      if (!String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        discard(res.body);
        throw upstreamFailed('the upstream did not answer with an event stream', res.statusCode);
      }
      deadline.touch();
      stop.watch(res.body, res.socket);
      sink.open();
      // After a stop the answer is still read to its end (bounded): the sink meters it, a client gone gets none.
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          stop.read(chunk.length);
          ended.read(chunk);
          // The clock runs while we wait for the upstream, not while a slow client reads.
          deadline.pause();
          await sink.write(chunk);
          deadline.touch();
        }
      } finally {
        stop.ended();
      }
      // The upstream's end frees its breaker slot (a client may still read); stopped before `[DONE]`, it proves nothing.
      if (call.clientGone.aborted && !ended.done) call.callerGone?.();
      else call.backendDone?.();
      await sink.end();
    } catch (err) {
      const e = transportError(err, call, deadline);
      if (!sink.opened) throw e;
      // A client gone (it proves nothing), or an answer already whole (`[DONE]` read) whose connection failed: it ends.
      if (e.kind === 'client_closed' && !ended.done) call.callerGone?.();
      if (e.kind === 'client_closed' || ended.done) return sink.end();
      await endWithError(sink, e);
      throw e;
    } finally {
      stop.dispose();
      deadline.clear();
    }
  }

  /** The upstream's `GET /models`, checked and reduced to the OpenAI model fields. */
  async models(call: InferenceCall): Promise<ModelList> {
    const deadline = new Deadline(this.config.upstreamTimeoutMs);
    try {
      const res = await this.http.send({
        method: 'GET',
        path: '/models',
        accept: 'application/json',
        signal: AbortSignal.any([call.signal, deadline.signal]),
        requestId: call.requestId,
      });
      if (res.statusCode < 200 || res.statusCode >= 300) throw await this.http.failure(res);
      return parseModelList((await readLimited(res.body, MAX_MODEL_LIST_BYTES)).toString('utf8'));
    } catch (err) {
      throw transportError(err, call, deadline);
    } finally {
      deadline.clear();
    }
  }

  async health(signal: AbortSignal): Promise<Record<string, unknown>> {
    const t0 = performance.now();
    let res: Dispatcher.ResponseData;
    try {
      res = await this.http.send({
        method: 'GET',
        path: '/models',
        accept: 'application/json',
        signal,
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
    return { backend: this.kind, upstream: new URL(this.http.base).origin, latencyMs };
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

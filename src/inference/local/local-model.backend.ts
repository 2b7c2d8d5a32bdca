import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import { abortedCall, InferenceError } from '../inference.errors.js';
import type { InferenceBackend, InferenceCall, SseSink } from '../inference-backend.js';
import {
  ChatCompletion,
  ChatCompletionChunk,
  completionId,
  FinishReason,
  ModelList,
  usage,
} from '../openai.types.js';
import { endWithError } from '../sse-response.js';
import { generate } from './generate.js';
import { loadLanguageModel } from './text-analysis.js';

/** The model name the demo model answers with (whatever model was asked for). */
export const LOCAL_MODEL_NAME = 'rampart-local-demo';
/** `created` of the demo model in `GET /v1/models` (seconds since the epoch: 2025-01-01). */
const LOCAL_MODEL_CREATED = 1_735_689_600;
/** Chunks written between two yields to the event loop while streaming. */
const CHUNKS_PER_YIELD = 16;

/**
 * The built-in demo model, used when no INFERENCE_UPSTREAM_URL is set. It is
 * not a language model: it reads the last user message with wink-nlp
 * (sentiment, named entities, tokens, key words) and answers with what it
 * found, in the exact OpenAI chat.completion / chat.completion.chunk shapes.
 * Deterministic: sampling fields (temperature, top_p…) do not change it;
 * `max_tokens` and `stop` do.
 */
export class LocalModelBackend implements InferenceBackend {
  readonly kind = 'local';

  constructor(private readonly now: () => number = Date.now) {
    loadLanguageModel();
  }

  complete(body: ChatCompletionRequestDto, call: InferenceCall): Promise<ChatCompletion> {
    if (call.signal.aborted)
      return Promise.reject(abortedCall(call.clientGone, 'the demo model call was aborted'));
    const g = generate(body);
    return Promise.resolve({
      id: completionId(),
      object: 'chat.completion',
      created: Math.floor(this.now() / 1000),
      model: LOCAL_MODEL_NAME,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: g.pieces.join('') },
          finish_reason: g.finish,
          logprobs: null,
        },
      ],
      usage: usage(g.promptTokens, g.pieces.length),
    });
  }

  async stream(body: ChatCompletionRequestDto, call: InferenceCall, sink: SseSink): Promise<void> {
    if (call.signal.aborted) throw abortedCall(call.clientGone, 'the demo model call was aborted');
    const g = generate(body);
    const base = {
      id: completionId(),
      object: 'chat.completion.chunk' as const,
      created: Math.floor(this.now() / 1000),
      model: LOCAL_MODEL_NAME,
    };
    const chunk = (
      delta: ChatCompletionChunk['choices'][0]['delta'],
      finish: FinishReason | null,
    ): ChatCompletionChunk => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    sink.open();
    await sink.event(chunk({ role: 'assistant', content: '' }, null));
    for (let i = 0; i < g.pieces.length; i++) {
      if (call.signal.aborted) return this.stopped(call, sink);
      await sink.event(chunk({ content: g.pieces[i] }, null));
      if (i % CHUNKS_PER_YIELD === CHUNKS_PER_YIELD - 1)
        await new Promise<void>((r) => setImmediate(r));
    }
    if (call.signal.aborted) return this.stopped(call, sink);
    await sink.event(chunk({}, g.finish));
    if (body.stream_options?.include_usage)
      await sink.event({ ...base, choices: [], usage: usage(g.promptTokens, g.pieces.length) });
    await sink.write('data: [DONE]\n\n');
    // As an upstream's last chunk: the model's work is over, whatever the client has left to read (its slot ends).
    call.backendDone?.();
    await sink.end();
  }

  models(call: InferenceCall): Promise<ModelList> {
    if (call.signal.aborted)
      return Promise.reject(abortedCall(call.clientGone, 'the demo model call was aborted'));
    return Promise.resolve({
      object: 'list',
      data: [
        {
          id: LOCAL_MODEL_NAME,
          object: 'model',
          created: LOCAL_MODEL_CREATED,
          owned_by: 'rampart',
        },
      ],
    });
  }

  health(): Promise<Record<string, unknown>> {
    return Promise.resolve({ backend: this.kind, model: LOCAL_MODEL_NAME });
  }

  /**
   * A client that left (or a stream cut) gets nothing more, and the breakers are told the call proves nothing; a
   * breaker abort ends the stream with an error event and fails the call.
   */
  private async stopped(call: InferenceCall, sink: SseSink): Promise<void> {
    const err: InferenceError = abortedCall(call.clientGone, 'the demo model stream was aborted');
    if (err.kind === 'client_closed') {
      call.callerGone?.();
      return sink.end();
    }
    await endWithError(sink, err);
    throw err;
  }
}

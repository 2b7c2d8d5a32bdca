import { type AnyRequest, requestState } from '../../http/http-context.js';
import { type KeySource, SKIP } from '../../locks/cache-shield/cache-shield.key-source.js';
import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import type { ChatCompletion } from '../openai.types.js';
import { UsageMeter } from '../tokens/usage-meter.js';
import type { CompletionRecorder } from './completion-recorder.js';
import { completionKey, isDeterministic, validChatRequest } from './completion-key.js';
import { replayAsSse } from './sse-replay.js';

/** Name of the key source (the `inference` policy's cacheShield `key`). */
export const COMPLETION_KEY_SOURCE = 'completion';

/** A cacheable request: as the route will see it, and the request itself (its token reservation, its stream). */
interface Cacheable {
  dto: ChatCompletionRequestDto;
  req: AnyRequest;
}

/** A chat.completion as the JSON route answers it (a stream's call answers undefined). */
function isCompletion(body: unknown): body is ChatCompletion {
  return (
    typeof body === 'object' && body !== null && Array.isArray((body as ChatCompletion).choices)
  );
}

/**
 * The cache shield's key source of chat completions: the deterministic answer cache
 * (docs/inference.md#deterministic-answer-cache). Only requests meant to be repeatable (`temperature: 0`
 * or a `seed`) that the route would accept are read; their key is the hash of every field that changes
 * the answer. A stream's answer is kept once it finished normally (recorded by the inference service);
 * a cached answer is replayed as JSON or as server-sent events, as the request asks. `chargeTokens`:
 * a cached answer is charged its usage to the tokens rules; else its reservation is given back whole.
 */
export function completionKeySource(
  recorder: CompletionRecorder,
  chargeTokens: boolean,
): KeySource<Cacheable> {
  return {
    // A model's answer does not change when the search index does.
    independentOfData: true,
    read(req) {
      const body = (req as { body?: unknown }).body;
      if (!isDeterministic(body)) return SKIP;
      const dto = validChatRequest(body);
      if (!dto) return SKIP;
      if (dto.stream) recorder.want(req);
      const cacheKey = completionKey(dto);
      // No product registers this filter: lookups are "bypassed", the answers are cached, never filtered.
      const input: Cacheable = { dto, req };
      return {
        request: { filter: 'inference-completions', keys: [], cacheKey, allowKey: cacheKey, input },
      };
    },
    accept: (r) => r.input as Cacheable,
    // Nothing is ever absent or empty (no filter, no null cache).
    absent: () => undefined,
    isEmpty: () => false,
    isEmptyError: () => false,
    keep: (r, body) => (isCompletion(body) ? body : recorder.take((r.input as Cacheable).req)),
    found({ dto, req }, body, reply) {
      const answer = body as ChatCompletion;
      const tokens = requestState(req).tokens;
      if (chargeTokens && tokens) {
        const meter = new UsageMeter(dto.model);
        meter.see(answer);
        tokens.hold();
        tokens.settle(meter.used(tokens.reserved.prompt));
      }
      if (!dto.stream || !reply) return answer;
      return replayAsSse(answer, reply, dto.stream_options?.include_usage === true);
    },
  };
}

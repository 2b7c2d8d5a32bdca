import type { AnyRequest } from '../../http/http-context.js';
import { DEFAULT_MAX_TOKENS } from '../dto/chat-completion-request.dto.js';
import type { TokenPrice } from '../../locks/rate-limit/core/usage-keys.js';
import { priceOf } from './model-prices.js';
import { promptTokens } from './token-count.js';

/** Safety factor of prompt counts for models whose encoding is a guess (INFERENCE_TOKEN_SAFETY_PERCENT ÷ 100). */
let safety = 1.1;

/** Set once at boot from the configuration (InferenceModule). */
export function setTokenSafety(percent: number): void {
  safety = percent / 100;
}

/**
 * What a chat request reserves against the inference policy's tokens rules (the `inference` token counter of the
 * rate limiter): its prompt counted with the model's tokenizer, and `max_tokens`, or the default the request DTO
 * then sends upstream, so the reservation bounds what the upstream may generate. Read from the raw body, before
 * validation (a request that fails it is refused later, and its reservation given back whole). With the model's
 * price (`inference.prices`), for the spend its usage records.
 */
export function inferenceTokens(
  req: AnyRequest,
): { prompt: number; completion: number; model: string; price?: TokenPrice } | undefined {
  const body = (req as { body?: unknown }).body;
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { model?: unknown; messages?: unknown; max_tokens?: unknown };
  const model = typeof b.model === 'string' ? b.model.slice(0, 128) : '';
  const messages = Array.isArray(b.messages)
    ? (b.messages as unknown[]).filter(
        (m): m is Record<string, unknown> => typeof m === 'object' && m !== null,
      )
    : [];
  const max = b.max_tokens;
  const completion =
    typeof max === 'number' && Number.isInteger(max) && max >= 1 ? max : DEFAULT_MAX_TOKENS;
  const price = priceOf(model);
  return {
    prompt: promptTokens(model, messages, safety),
    completion,
    model,
    ...(price ? { price } : {}),
  };
}

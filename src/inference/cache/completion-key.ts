import { createHash } from 'node:crypto';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';

/**
 * Fields of a chat request that do not change its answer, left out of the cache key: how it is delivered
 * (`stream`, `stream_options`: a cached answer is replayed either way) and who the end user is (`user`).
 */
const NOT_IN_KEY = new Set(['stream', 'stream_options', 'user']);

/**
 * True for a request whose answer is meant to be repeatable: `temperature: 0`, or a `seed` (OpenAI's
 * best-effort determinism). Read from the raw body, before validation: anything else is never cached.
 */
export function isDeterministic(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as { temperature?: unknown; seed?: unknown };
  return b.temperature === 0 || (typeof b.seed === 'number' && Number.isInteger(b.seed));
}

/**
 * The request as the route will see it (the global ValidationPipe's options: unknown fields dropped,
 * defaults applied), or undefined when the route would refuse it (then the route answers its 400).
 */
export function validChatRequest(body: unknown): ChatCompletionRequestDto | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const dto = plainToInstance(ChatCompletionRequestDto, body);
  const errors = validateSync(dto, { whitelist: true, forbidUnknownValues: true });
  return errors.length === 0 ? dto : undefined;
}

/** JSON with every object's keys sorted and undefined members left out: one text for one value. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonicalJson(x ?? null)).join(',')}]`;
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  const o = v as Record<string, unknown>;
  const parts = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`);
  return `{${parts.join(',')}}`;
}

/**
 * The cache key of a validated chat request: the SHA-256 (base64url) of the canonical JSON of every field
 * that changes the answer (model, messages, max_tokens with its default, temperature, top_p, penalties,
 * stop, seed). Hashed so a long prompt is never held as a key, and no prompt text reaches Redis.
 */
export function completionKey(dto: ChatCompletionRequestDto): string {
  const fields = Object.fromEntries(Object.entries(dto).filter(([k]) => !NOT_IN_KEY.has(k)));
  return createHash('sha256').update(canonicalJson(fields)).digest('base64url');
}

/**
 * The OpenAI chat-completions wire shapes that Rampart answers with
 * (https://platform.openai.com/docs/api-reference/chat/object). Only the
 * fields Rampart produces are typed; an upstream's extra fields pass through.
 */
import { randomBytes } from 'node:crypto';

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';
export type FinishReason = 'stop' | 'length';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  /** Seconds since the epoch. */
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string };
    finish_reason: FinishReason;
    logprobs: null;
  }[];
  usage: ChatUsage;
  [extra: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: 'assistant'; content?: string };
    finish_reason: FinishReason | null;
    logprobs: null;
  }[];
  /** Only on the last chunk, and only when `stream_options.include_usage` asked for it (then `choices` is empty). */
  usage?: ChatUsage | null;
}

/** A completion id in OpenAI's format: `chatcmpl-` and 24 random characters. */
export function completionId(): string {
  return `chatcmpl-${randomBytes(18).toString('base64url')}`;
}

export function usage(prompt: number, completion: number): ChatUsage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** One entry of `GET /v1/models` (https://platform.openai.com/docs/api-reference/models/object). */
export interface ModelEntry {
  id: string;
  object: 'model';
  /** Seconds since the epoch. */
  created: number;
  owned_by: string;
}

/** The answer of `GET /v1/models`. */
export interface ModelList {
  object: 'list';
  data: ModelEntry[];
}

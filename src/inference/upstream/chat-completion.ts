import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import { upstreamFailed } from '../inference.errors.js';
import type { InferenceCall } from '../inference-backend.js';
import type { ChatCompletion } from '../openai.types.js';
import type { Deadline } from './deadline.js';
import type { UpstreamRequest } from './upstream-http.js';

/**
 * The upstream's `POST /chat/completions` request: only the validated body, ended by `stop` (the call's signal, or
 * the stream's own stop) or the deadline, whichever comes first.
 */
export function chatRequest(
  body: ChatCompletionRequestDto,
  call: InferenceCall,
  deadline: Deadline,
  stop: AbortSignal,
): UpstreamRequest {
  return {
    method: 'POST',
    path: '/chat/completions',
    accept: body.stream ? 'text/event-stream' : 'application/json',
    body: JSON.stringify(body),
    signal: AbortSignal.any([stop, deadline.signal]),
    requestId: call.requestId,
  };
}

/** Reads a JSON `/chat/completions` answer: anything that is not a chat completion is a failed call (502). */
export function parseChatCompletion(text: string, statusCode: number): ChatCompletion {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw upstreamFailed('the upstream answer is not valid JSON', statusCode);
  }
  if (
    typeof answer !== 'object' ||
    answer === null ||
    !Array.isArray((answer as { choices?: unknown }).choices)
  ) {
    throw upstreamFailed('the upstream answer is not a chat completion', statusCode);
  }
  return answer as ChatCompletion;
}

import type { AnyReply } from '../../http/http-context.js';
import type { ChatCompletion } from '../openai.types.js';
import { SseResponse } from '../sse-response.js';

/**
 * Writes a cached chat.completion as the stream OpenAI would send for it: per choice a role chunk, its
 * text in one chunk and its finish reason, then (when the client asked, `include_usage`) the usage
 * chunk with empty `choices`, then `data: [DONE]`. Resolves once the stream has ended.
 */
export async function replayAsSse(
  answer: ChatCompletion,
  reply: AnyReply,
  includeUsage: boolean,
): Promise<undefined> {
  const sse = new SseResponse(reply, new AbortController().signal);
  const base = {
    id: answer.id,
    object: 'chat.completion.chunk',
    created: answer.created,
    model: answer.model,
  };
  const chunk = (index: number, delta: object, finish: string | null) => ({
    ...base,
    choices: [{ index, delta, finish_reason: finish, logprobs: null }],
  });
  sse.open();
  for (const c of answer.choices) {
    await sse.event(chunk(c.index, { role: 'assistant', content: '' }, null));
    await sse.event(chunk(c.index, { content: c.message.content }, null));
    await sse.event(chunk(c.index, {}, c.finish_reason));
  }
  if (includeUsage && answer.usage) await sse.event({ ...base, choices: [], usage: answer.usage });
  await sse.write('data: [DONE]\n\n');
  await sse.end();
  return undefined;
}

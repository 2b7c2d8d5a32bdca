import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import type { FinishReason } from '../openai.types.js';
import { composeReply } from './compose-reply.js';
import { analyzeText } from './text-analysis.js';
import { countTokens, tokenPieces } from './token-pieces.js';

/** The demo model's answer: its token pieces, why it ended, and the prompt's token count. */
export interface Generated {
  pieces: string[];
  finish: FinishReason;
  promptTokens: number;
}

/** The whole answer to a request: analysis of the last user message, cut at `stop` and at `max_tokens`. */
export function generate(body: ChatCompletionRequestDto): Generated {
  const lastUser = body.messages.findLast((m) => m.role === 'user')?.content ?? '';
  let text = composeReply(analyzeText(lastUser));
  let finish: FinishReason = 'stop';
  const stops =
    body.stop === undefined ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const cut = Math.min(...stops.map((s) => text.indexOf(s)).filter((i) => i >= 0));
  if (Number.isFinite(cut)) text = text.slice(0, cut);
  let pieces = tokenPieces(text);
  if (pieces.length > body.max_tokens) {
    pieces = pieces.slice(0, body.max_tokens);
    finish = 'length';
  }
  const promptTokens = body.messages.reduce((n, m) => n + countTokens(m.content), 0);
  return { pieces, finish, promptTokens };
}

import { Inject, Injectable } from '@nestjs/common';
import type { ChatCompletionRequestDto } from '../inference/dto/chat-completion-request.dto.js';
import { LOCAL_MODEL_NAME } from '../inference/local/local-model.backend.js';
import { SEARCH_BACKEND, type SearchBackend } from '../search/search-backend.interface.js';
import { TERMS_FILTER } from '../search/search-key-sources.js';
import { tokenize } from '../search/search-tokenizer.js';
import { BackendBusyError, BuiltinBackends } from './builtin-backends.js';
import { OutboundService } from './outbound/outbound.service.js';
import type { ClassifiedUpdate } from './telegram-update.js';
import type { BotConfig } from './telegram.types.js';

export const HELP_TEXT = [
  'Rampart demo bot. Commands:',
  '/search <words> — search the cities index',
  '/ask <text> — ask the demo model',
  '/help — this list',
].join('\n');

const MAX_QUERY = 200;
const MAX_ASK = 1000;
/** Telegram's limit on a message's text. */
const MAX_REPLY = 4096;

/** The reply when a backend's breaker refuses: short, with the wait when there is one. */
export function busyText(err: BackendBusyError): string {
  const s = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
  return `Busy right now; try again in ${s} s.`;
}

/**
 * Builtin mode: the demo search bot. `/search` asks the search filter first
 * (the cache shield's Bloom filter: a query with a word that cannot be in the
 * index is answered "nothing found" without touching the backend), then the
 * search backend through the `search` breaker; `/ask` goes to the inference
 * backend through the `inference` breaker (lock 4). Replies go out through the
 * outbound sender (by the same bot, high priority, in the chat's order), after
 * the webhook was answered.
 */
@Injectable()
export class TelegramBuiltin {
  constructor(
    private readonly outbound: OutboundService,
    @Inject(SEARCH_BACKEND) private readonly search: SearchBackend,
    private readonly backends: BuiltinBackends,
  ) {}

  handle(bot: BotConfig, u: ClassifiedUpdate): void {
    if (u.chatId === undefined || u.kind !== 'message') return;
    const reply = (text: string) =>
      void this.outbound
        .reply(bot.id, u.chatId!, 'sendMessage', {
          text: text.slice(0, MAX_REPLY),
          ...(u.threadId !== undefined ? { message_thread_id: u.threadId } : {}),
        })
        .catch(() => undefined);
    if (u.action === '/start' || u.action === '/help') reply(HELP_TEXT);
    else if (u.action === '/search') void this.answerSearch(u.args).then(reply);
    else if (u.action === '/ask') void this.answerAsk(u.args).then(reply);
    // Plain messages, and unknown commands in a group, are not for the bot: no reply.
    else if (u.action !== undefined && u.chatType === 'private') reply(HELP_TEXT);
  }

  /** The reply text for `/search <q>`. */
  async answerSearch(q: string): Promise<string> {
    const query = q.slice(0, MAX_QUERY);
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0) return 'Usage: /search <words>';
    if (this.backends.bloom?.verdict(TERMS_FILTER, terms).verdict === 'absent')
      return `Nothing found for “${query}”.`;
    try {
      const page = await this.backends.guarded('search', (signal) =>
        this.search.search(query, 5, 0, signal),
      );
      if (page.items.length === 0) return `Nothing found for “${query}”.`;
      const lines = page.items.map((i) => `• ${i.name}${i.country ? ` (${i.country})` : ''}`);
      return [`${page.total} found for “${query}”:`, ...lines].join('\n');
    } catch (err) {
      if (err instanceof BackendBusyError) return busyText(err);
      return 'Search is unavailable right now; try again in a minute.';
    }
  }

  /** The reply text for `/ask <text>`. */
  async answerAsk(q: string): Promise<string> {
    const text = q.trim().slice(0, MAX_ASK);
    if (text === '') return 'Usage: /ask <text>';
    const inference = this.backends.inference;
    if (!inference) return 'Asking is not available on this instance.';
    try {
      const done = await this.backends.guarded('inference', (signal) =>
        inference.complete(
          {
            model: LOCAL_MODEL_NAME,
            messages: [{ role: 'user', content: text }],
          } as ChatCompletionRequestDto,
          { signal, clientGone: new AbortController().signal },
        ),
      );
      return done.choices[0]?.message.content || 'No answer.';
    } catch (err) {
      if (err instanceof BackendBusyError) return busyText(err);
      return 'The model is unavailable right now; try again in a minute.';
    }
  }
}

import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { BloomService } from '../locks/cache-shield/bloom/bloom.service.js';
import { SEARCH_BACKEND, type SearchBackend } from '../search/search-backend.interface.js';
import { TERMS_FILTER } from '../search/search-key-sources.js';
import { tokenize } from '../search/search-tokenizer.js';
import { BotApiClients } from './bot-api-clients.js';
import type { ClassifiedUpdate } from './telegram-update.js';
import type { BotConfig } from './telegram.types.js';

export const HELP_TEXT = [
  'Rampart demo bot. Commands:',
  '/search <words> — search the cities index',
  '/help — this list',
].join('\n');

const MAX_QUERY = 200;

/**
 * Builtin mode: the demo search bot. `/search` asks the search filter first
 * (the cache shield's Bloom filter: a query with a word that cannot be in the
 * index is answered "nothing found" without touching the backend), then the
 * search backend. Replies go out through the Bot API client, after the
 * webhook was answered.
 */
@Injectable()
export class TelegramBuiltin implements OnModuleInit {
  private bloom?: BloomService;

  constructor(
    private readonly clients: BotApiClients,
    @Inject(SEARCH_BACKEND) private readonly search: SearchBackend,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit(): void {
    // The shield is a lock module that may not be installed: found where it is, never imported.
    try {
      this.bloom = this.modules.get(BloomService, { strict: false });
    } catch {
      this.bloom = undefined;
    }
  }

  handle(bot: BotConfig, u: ClassifiedUpdate): void {
    if (u.chatId === undefined || u.kind !== 'message') return;
    const reply = (text: string) =>
      this.clients.background(bot, 'sendMessage', (api) =>
        api.sendMessage(
          u.chatId!,
          text,
          u.threadId !== undefined ? { message_thread_id: u.threadId } : {},
        ),
      );
    if (u.action === '/start' || u.action === '/help') reply(HELP_TEXT);
    else if (u.action === '/search') void this.answerSearch(u.args).then(reply);
    // Plain messages, and unknown commands in a group, are not for the bot: no reply.
    else if (u.action !== undefined && u.chatType === 'private') reply(HELP_TEXT);
  }

  /** The reply text for `/search <q>`. */
  async answerSearch(q: string): Promise<string> {
    const query = q.slice(0, MAX_QUERY);
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0) return 'Usage: /search <words>';
    if (this.bloom?.verdict(TERMS_FILTER, terms).verdict === 'absent')
      return `Nothing found for “${query}”.`;
    try {
      const page = await this.search.search(query, 5, 0);
      if (page.items.length === 0) return `Nothing found for “${query}”.`;
      const lines = page.items.map((i) => `• ${i.name}${i.country ? ` (${i.country})` : ''}`);
      return [`${page.total} found for “${query}”:`, ...lines].join('\n');
    } catch {
      return 'Search is unavailable right now; try again in a minute.';
    }
  }
}

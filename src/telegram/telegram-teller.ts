import { Injectable } from '@nestjs/common';
import { BotApiClients } from './bot-api-clients.js';
import { OutboundService } from './outbound/outbound.service.js';
import type { ClassifiedUpdate } from './telegram-update.js';
import { TelegramMetrics, commandLabel } from './telegram.metrics.js';
import type { BotConfig } from './telegram.types.js';

/**
 * Tells a limited user once how long to wait: a short reply in that chat, or
 * for a callback query a light `answerCallbackQuery` (the client stops
 * spinning). The rate limiter decides "once" (`limited.notify`); later
 * refusals in the window are dropped without a word. The message goes through
 * the outbound sender; the callback answer (no chat, due within seconds)
 * directly through the Bot API client.
 */
@Injectable()
export class TelegramTeller {
  constructor(
    private readonly clients: BotApiClients,
    private readonly outbound: OutboundService,
    private readonly metrics: TelegramMetrics,
  ) {}

  tell(bot: BotConfig, u: ClassifiedUpdate, retryAfterMs: number): void {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    const text = `Too many requests: please wait ${seconds} s.`;
    const command = commandLabel(u);
    if (u.kind === 'callback_query' && u.callbackQueryId !== undefined) {
      const id = u.callbackQueryId;
      this.metrics.told.inc({ bot: bot.id, command, how: 'callback' });
      this.clients.background(bot, 'answerCallbackQuery', (api) =>
        api.answerCallbackQuery(id, { text }),
      );
      return;
    }
    // Only where a reply has a place: a chat the user wrote in (not inline queries, channel posts).
    if (u.chatId === undefined || u.userId === undefined || u.kind === 'my_chat_member') return;
    const chatId = u.chatId;
    this.metrics.told.inc({ bot: bot.id, command, how: 'message' });
    void this.outbound
      .reply(bot.id, chatId, 'sendMessage', {
        text,
        ...(u.threadId !== undefined ? { message_thread_id: u.threadId } : {}),
      })
      .catch(() => undefined);
  }
}

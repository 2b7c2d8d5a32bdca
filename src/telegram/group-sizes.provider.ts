import type { Provider } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { BotApiClients } from './bot-api-clients.js';
import { GroupSizes } from './group-sizes.js';
import { TelegramBots } from './telegram-bots.js';

/**
 * The groups' member counts (getChatMemberCount through the bot's grammY client), and
 * `rampart_telegram_group_size_lookups_total{bot, outcome}`: ok, failed (ignored: the group keeps factor 1
 * or its old count), skipped (every fetch slot busy). Never a chat id in a label.
 */
export const groupSizesProvider: Provider = {
  provide: GroupSizes,
  inject: [TelegramBots, BotApiClients, CLOCK, MetricsService],
  useFactory: (bots: TelegramBots, clients: BotApiClients, clock: Clock, m: MetricsService) => {
    const lookups = m.counter(
      'rampart_telegram_group_size_lookups_total',
      'Group member-count lookups (getChatMemberCount) by bot and outcome (ok, failed, skipped)',
      ['bot', 'outcome'],
    );
    return new GroupSizes(
      async (botId, chatId) => {
        const bot = bots.get(botId);
        if (!bot) throw new Error('unknown bot');
        return clients.api(bot).getChatMemberCount(chatId);
      },
      clock,
      (bot, outcome) => lookups.inc({ bot, outcome }),
    );
  },
};

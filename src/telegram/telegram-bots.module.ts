import { Module } from '@nestjs/common';
import { RAMPART_CONFIG } from '../config/config.constants.js';
import type { RampartConfig } from '../config/config.types.js';
import { BotApiClients } from './bot-api-clients.js';
import { TelegramBots } from './telegram-bots.js';
import { TELEGRAM_SETTINGS, telegramSettings } from './telegram.settings.js';
import type { TelegramSettings } from './telegram.types.js';

/** The validated `telegram:` settings, the bot registry (stops the boot on a bad bot) and the Bot API clients. */
@Module({
  providers: [
    {
      provide: TELEGRAM_SETTINGS,
      useFactory: (c: RampartConfig) => telegramSettings(c),
      inject: [RAMPART_CONFIG],
    },
    {
      provide: TelegramBots,
      useFactory: (s: TelegramSettings) => new TelegramBots(s),
      inject: [TELEGRAM_SETTINGS],
    },
    BotApiClients,
  ],
  exports: [TELEGRAM_SETTINGS, TelegramBots, BotApiClients],
})
export class TelegramBotsModule {}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { Api } from 'grammy';
import type { BotConfig, TelegramSettings } from './telegram.types.js';
import { TELEGRAM_SETTINGS } from './telegram.settings.js';

/**
 * One grammY `Api` per bot, pointed at the configured Bot API root, for the
 * calls that are not chat messages (getWebhookInfo, answerCallbackQuery);
 * messages go out through the outbound sender (outbound/).
 * Failures are logged with the bot id and token fingerprint, never the token
 * (grammY's errors carry the method and description, not the URL).
 */
@Injectable()
export class BotApiClients {
  private readonly logger = new Logger('Telegram');
  private readonly apis = new Map<string, Api>();

  constructor(@Inject(TELEGRAM_SETTINGS) private readonly settings: TelegramSettings) {}

  api(bot: BotConfig): Api {
    let a = this.apis.get(bot.id);
    if (!a) {
      a = new Api(bot.token, { apiRoot: this.settings.apiRoot });
      this.apis.set(bot.id, a);
    }
    return a;
  }

  /** Runs a send without holding up the webhook answer; a failure is logged, never thrown. */
  background(bot: BotConfig, what: string, send: (api: Api) => Promise<unknown>): void {
    send(this.api(bot)).catch((err: unknown) => {
      this.logger.warn({
        msg: `Bot API call failed: ${what}`,
        bot: bot.id,
        token: bot.fingerprint,
        err: err instanceof Error ? err.message.replaceAll(bot.token, '<token>') : String(err),
      });
    });
  }
}

import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HealthRegistry } from '../health/health-registry.service.js';
import { BotApiClients } from './bot-api-clients.js';
import { TelegramBots } from './telegram-bots.js';
import { TELEGRAM_SETTINGS } from './telegram.settings.js';
import type { TelegramSettings } from './telegram.types.js';

/** What /health/ready shows of one bot's webhook (from getWebhookInfo). */
export interface WebhookFacts {
  pendingUpdates?: number;
  lastError?: string;
  /** Seconds since epoch of Telegram's last failed delivery. */
  lastErrorDate?: number;
  /** Why the facts could not be read (the Bot API is unreachable, the token is refused…). */
  unavailable?: string;
  /** Epoch milliseconds of the last poll. */
  polledAt: number;
}

/**
 * Polls each bot's getWebhookInfo in the background (never per probe) and
 * shows it in /health/ready as an optional check: a webhook Telegram reports
 * errors for, or facts that cannot be read, make the service degraded, never
 * down — ingress works whatever Telegram says about delivery.
 */
@Injectable()
export class WebhookInfoService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly facts = new Map<string, WebhookFacts>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly bots: TelegramBots,
    private readonly clients: BotApiClients,
    private readonly health: HealthRegistry,
    @Inject(TELEGRAM_SETTINGS) private readonly settings: TelegramSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.bots.all().length === 0) return;
    this.health.register('telegram', () => Promise.resolve(this.report()), { optional: true });
    if (this.settings.webhookInfoPollMs === 0) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.settings.webhookInfoPollMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One round of getWebhookInfo calls (exposed for tests and the first probe). */
  async poll(): Promise<void> {
    await Promise.all(
      this.hooked().map(async (bot) => {
        const polledAt = Date.now();
        try {
          const info = await this.clients.api(bot).getWebhookInfo();
          this.facts.set(bot.id, {
            pendingUpdates: info.pending_update_count,
            lastError: info.last_error_message,
            lastErrorDate: info.last_error_date,
            polledAt,
          });
        } catch (e) {
          const reason = (e as Error).message.replaceAll(bot.token, '<token>');
          this.facts.set(bot.id, { unavailable: reason.slice(0, 200), polledAt });
        }
      }),
    );
  }

  /** The bots with a webhook (an outbound-only bot has none to ask about). */
  private hooked() {
    return this.bots.all().filter((b) => b.pathSecret !== undefined);
  }

  /** The health details; throws (→ degraded) when a bot's webhook reports an error. */
  report(): Record<string, unknown> {
    const bots = Object.fromEntries(
      this.bots
        .all()
        .map((b) => [
          b.id,
          b.pathSecret === undefined
            ? { mode: b.mode, token: b.fingerprint, webhook: 'none' }
            : { mode: b.mode, token: b.fingerprint, ...this.facts.get(b.id) },
        ]),
    );
    const troubled = Object.entries(bots).flatMap(([id, f]) => {
      const facts = f as WebhookFacts;
      if (facts.unavailable !== undefined)
        return [`${id}: getWebhookInfo failed (${facts.unavailable})`];
      if (facts.lastError !== undefined)
        return [`${id}: ${facts.pendingUpdates ?? 0} pending, last error "${facts.lastError}"`];
      return [];
    });
    // The health page shows a degraded check's message only: the facts go into it.
    if (troubled.length > 0) throw new Error(`webhook trouble: ${troubled.join('; ')}`);
    return { bots };
  }
}

import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RedisService } from '../../redis/redis.service.js';
import { BotApiClients } from '../bot-api-clients.js';
import { TelegramBots } from '../telegram-bots.js';
import { TELEGRAM_SETTINGS } from '../telegram.settings.js';
import type { BotConfig, TelegramSettings } from '../telegram.types.js';
import { dispatchLocally, ownBaseUrl } from './local-dispatch.js';
import { MemoryPollStateStore } from './memory-poll-state.store.js';
import type { PollStateStore } from './poll-state.store.js';
import { RedisPollStateStore } from './redis-poll-state.store.js';
import { type PollFailure, PollingMetrics } from './polling.metrics.js';
import { getUpdates, pollBackoffMs, relayAnswer } from './polling-bot-api.js';
import { type PolledUpdate, UpdatePoller } from './update-poller.js';

/**
 * Long polling (`ingress: polling`): one UpdatePoller per polling bot. Every
 * instance runs one; the lease in the poll state store lets exactly one of
 * them poll a bot at a time. Polled updates go through this process's own
 * webhook route (local-dispatch.ts): limited and deduplicated like any other.
 */
@Injectable()
export class TelegramPolling implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('TelegramPolling');
  private readonly poller = randomBytes(9).toString('base64url');
  private readonly pollers = new Map<string, UpdatePoller>();
  private readonly store: PollStateStore;

  constructor(
    private readonly bots: TelegramBots,
    @Inject(TELEGRAM_SETTINGS) private readonly settings: TelegramSettings,
    private readonly clients: BotApiClients,
    private readonly host: HttpAdapterHost,
    redis: RedisService,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: PollingMetrics,
  ) {
    this.store = redis.enabled ? new RedisPollStateStore(redis) : new MemoryPollStateStore(clock);
  }

  /** True when this instance polls the bot now (it holds the lease). */
  polling(botId: string): boolean {
    return this.pollers.get(botId)?.active === true;
  }

  onApplicationBootstrap(): void {
    for (const bot of this.bots.all()) {
      if (bot.ingress !== 'polling') continue;
      const p = this.pollerOf(bot);
      this.pollers.set(bot.id, p);
      p.start();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.pollers.values()].map((p) => p.close()));
    this.pollers.clear();
  }

  private base(): string | undefined {
    const server = this.host.httpAdapter?.getHttpServer() as Server | undefined;
    return server?.listening ? ownBaseUrl(server.address()) : undefined;
  }

  private pollerOf(bot: BotConfig): UpdatePoller {
    const s = this.settings;
    return new UpdatePoller({
      bot: bot.id,
      poller: this.poller,
      store: this.store,
      clock: this.clock,
      leaseMs: s.pollLeaseMs,
      timeoutS: s.pollTimeoutS,
      fetch: (offset, timeoutS, signal) =>
        getUpdates(this.clients.api(bot), offset, timeoutS, signal),
      dispatch: async (u) => {
        const ok = await this.dispatch(bot, u);
        if (ok) this.metrics.handled.inc({ bot: bot.id });
        else this.metrics.failures.inc({ bot: bot.id, step: 'dispatch' });
        return ok;
      },
      onFetched: (n) => this.metrics.fetched.inc({ bot: bot.id }, n),
      onActive: (on) => this.metrics.active.set({ bot: bot.id }, on ? 1 : 0),
      // Only an instance that serves HTTP polls (a worker process never takes the lease).
      ready: async (signal) => {
        while (!signal.aborted && this.base() === undefined)
          await sleep(100, undefined, { signal }).catch(() => undefined);
      },
      backoffMs: pollBackoffMs,
      onError: (what, err) => {
        this.metrics.failures.inc({ bot: bot.id, step: what as PollFailure });
        this.logger.warn({
          msg: `polling ${what} failed`,
          bot: bot.id,
          token: bot.fingerprint,
          err: err instanceof Error ? err.message.replaceAll(bot.token, '<token>') : String(err),
        });
      },
    });
  }

  /** One update through the webhook route; a Bot API call in the answer is made here (no webhook answer to carry it). */
  private async dispatch(bot: BotConfig, u: PolledUpdate): Promise<boolean> {
    const base = this.base();
    if (!base) return false;
    const res = await dispatchLocally(base, bot, u, this.settings.forwardTimeoutMs + 5_000);
    if (res.status < 200 || res.status > 299) return false;
    relayAnswer(this.clients, bot, res.body);
    return true;
  }
}

import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { TelegramBots } from '../telegram-bots.js';
import { CHAT_MIGRATION_STORE, type ChatMigrationStore } from './gate/chat-migration.store.js';
import { SEND_GATE_STORE, type SendGateStore } from './gate/send-gate.store.js';
import { OutboundMetrics } from './outbound.metrics.js';
import { OUTBOUND_QUEUE_STORE, type OutboundQueueStore } from './queue/outbound-queue.store.js';
import { BotHealth } from './worker/bot-health.js';
import { BotPacing } from './worker/bot-pacing.js';
import { BotRouting } from './worker/bot-routing.js';
import { BotTokens } from './worker/bot-tokens.js';
import { OutboundWorker } from './worker/outbound-worker.js';
import { SendAttempt } from './worker/send-attempt.js';

/**
 * The worker of this process: started at boot when `telegram.outbound.workers`
 * is on (or by `npm run worker`), stopped at shutdown after its sends settle.
 */
@Injectable()
export class OutboundWorkers implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly routing: BotRouting;
  /** This process's view of each bot's health (failure streaks, probes). */
  readonly health: BotHealth;
  private readonly worker: OutboundWorker;
  private readonly pacing: BotPacing;
  private depthTimer?: NodeJS.Timeout;

  constructor(
    @Inject(OUTBOUND_QUEUE_STORE) private readonly queue: OutboundQueueStore,
    @Inject(SEND_GATE_STORE) gate: SendGateStore,
    @Inject(CHAT_MIGRATION_STORE) migrations: ChatMigrationStore,
    private readonly bots: TelegramBots,
    private readonly metrics: OutboundMetrics,
    @Inject(CLOCK) clock: Clock,
  ) {
    const settings = bots.settings.outbound;
    const tokens = new BotTokens(bots.settings.apiRoot, settings.requestTimeoutMs);
    this.health = new BotHealth(clock, settings.unhealthyAfter, settings.probeMs);
    this.routing = new BotRouting(bots.all(), gate, clock, settings.registryRefreshMs, {
      streaks: this.health,
      probe: async (b) => {
        await tokens.api(b, (await gate.status(b.id)).gen).getMe();
        return true;
      },
    });
    // Waiting lanes of a full bot come back spread over about one round of this worker's slots.
    const spreadMs = Math.min(
      1_000,
      (settings.concurrency * 1000) / settings.buckets.bot.perSecond,
    );
    const pacing = (this.pacing = new BotPacing(clock, spreadMs));
    const attempt = new SendAttempt({
      queue,
      gate,
      migrations,
      routing: this.routing,
      pacing,
      tokens,
      health: this.health,
      settings,
      metrics,
      clock,
    });
    this.worker = new OutboundWorker(queue, attempt, settings, clock);
  }

  onApplicationBootstrap(): void {
    if (this.bots.settings.outbound.workers) this.start();
  }

  /** Starts sending (no-op when running, or when no bot is configured). */
  start(): void {
    if (this.bots.all().length === 0) return;
    this.worker.start();
    this.depthTimer ??= setInterval(() => {
      this.queue.depth().then(
        (n) => this.metrics.depth.set(n),
        () => undefined,
      );
    }, 5_000);
    this.depthTimer.unref();
  }

  wake(): void {
    this.worker.wake();
  }

  /** A bot's cooldown was lifted early: this process's worker forgets it and its waiting lanes are due now. */
  async lift(bot: string, now: number): Promise<number> {
    this.pacing.lift(bot);
    this.routing.invalidate(bot);
    const woken = await this.queue.wake(bot, now);
    this.worker.wake();
    return woken;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.depthTimer);
    await this.worker.stop();
  }
}

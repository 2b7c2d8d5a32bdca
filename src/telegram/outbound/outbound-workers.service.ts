import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RedisBus } from '../../redis/redis-bus.js';
import { RedisService } from '../../redis/redis.service.js';
import { TelegramBots } from '../telegram-bots.js';
import { CHAT_MIGRATION_STORE, type ChatMigrationStore } from './gate/chat-migration.store.js';
import { SEND_GATE_STORE, type SendGateStore } from './gate/send-gate.store.js';
import { OutboundMetrics } from './outbound.metrics.js';
import { OUTBOUND_QUEUE_STORE, type OutboundQueueStore } from './queue/outbound-queue.store.js';
import { PartitionOwners } from './queue/partition-owners.js';
import { liftChannel } from './queue/redis-outbound-queue.store.js';
import { OutboundRedis } from './outbound-redis.js';
import { takeShare } from './worker-wakes.js';
import { DepthGauge } from './depth-gauge.js';
import { assembleWorker } from './worker/assemble-worker.js';
import type { BotHealth } from './worker/bot-health.js';
import type { BotPacing } from './worker/bot-pacing.js';
import type { BotRouting } from './worker/bot-routing.js';
import type { OutboundWorker } from './worker/outbound-worker.js';

/**
 * The worker of this process: started at boot when `telegram.outbound.workers`
 * is on (or by `npm run worker`), stopped at shutdown after its sends settle.
 * With Redis it listens on the queue's wake channel, so a job queued through
 * any instance wakes it without a poll.
 */
@Injectable()
export class OutboundWorkers implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly routing: BotRouting;
  /** This process's view of each bot's health (failure streaks, probes). */
  readonly health: BotHealth;
  private readonly worker: OutboundWorker;
  private readonly pacing: BotPacing;
  private readonly depth: DepthGauge;
  /** With Redis: this worker's share of the queue's partitions (its roster beat and channels). */
  private share?: ReturnType<typeof takeShare>;

  constructor(
    @Inject(OUTBOUND_QUEUE_STORE) private readonly queue: OutboundQueueStore,
    @Inject(SEND_GATE_STORE) gate: SendGateStore,
    @Inject(CHAT_MIGRATION_STORE) migrations: ChatMigrationStore,
    private readonly bots: TelegramBots,
    metrics: OutboundMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly redis: RedisService,
    private readonly bus: RedisBus,
    private readonly owners: PartitionOwners,
    private readonly outboundRedis: OutboundRedis,
  ) {
    const w = assembleWorker(queue, gate, migrations, bots, metrics, clock);
    this.worker = w.worker;
    this.routing = w.routing;
    this.health = w.health;
    this.pacing = w.pacing;
    this.depth = new DepthGauge(
      queue,
      metrics,
      clock,
      () => this.worker.lastWorkAt,
      () => bots.settings.outbound.safetyPollMs,
    );
  }

  onApplicationBootstrap(): void {
    if (this.bots.settings.outbound.workers) this.start();
  }

  /** Starts sending (no-op when running, or when no bot is configured). */
  start(): void {
    if (this.bots.all().length === 0) return;
    this.worker.start();
    if (this.redis.enabled && !this.share) {
      const o = this.bots.settings.outbound;
      this.share = takeShare({
        ...{ bus: this.bus, redis: this.outboundRedis, base: this.redis.tag.slice(1, -1) },
        ...{ owners: this.owners, clock: this.clock, leaseMs: o.leaseMs, queue: this.queue },
        worker: this.worker,
        // '' (the bus reconnected): a lift missed meanwhile is caught by the worker's slow recheck.
        lift: (bot) => bot && this.forget(bot),
      });
    }
    this.depth.start();
  }

  wake(): void {
    this.worker.wake();
  }

  /** Stops listening to the wake and lift channels (this worker then relies on its polls and rechecks). */
  unwatch(): void {
    this.share?.unwatch();
  }

  /**
   * A bot's cooldown was lifted early (its new state is in the gate): its waiting lanes are due now, and the
   * worker of every instance forgets the cooldown (this one at once, the others on the lift channel).
   */
  async lift(bot: string, now: number): Promise<number> {
    this.forget(bot);
    const woken = await this.queue.wake(bot, now);
    if (this.redis.enabled) {
      const channel = liftChannel(this.redis.tag.slice(1, -1));
      await this.redis.run('telegram.lift', (c) => c.publish(channel, bot)).catch(() => 0);
    }
    this.worker.wake();
    return woken;
  }

  private forget(bot: string): void {
    this.pacing.lift(bot);
    // Its lanes are due now wherever they are: what this instance's claims noted of the partitions is old.
    this.queue.forget?.();
    this.routing.invalidate(bot);
    this.worker.wake();
  }

  async onApplicationShutdown(): Promise<void> {
    this.depth.stop();
    // Leaves the roster while its sends settle: the other workers take its partitions over at once.
    await Promise.all([this.worker.stop(), this.share?.leave()]);
  }
}

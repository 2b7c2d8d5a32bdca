import { Logger, Module } from '@nestjs/common';
import { RAMPART_CONFIG } from '../../config/config.constants.js';
import type { RampartConfig } from '../../config/config.types.js';
import { IdCipher } from './id-cipher.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RateLimitModule } from '../../locks/rate-limit/rate-limit.module.js';
import { RedisService } from '../../redis/redis.service.js';
import { OutboundRedis } from './outbound-redis.js';
import { CallbackDispatcher } from './callbacks/callback-dispatcher.js';
import { NotifyingQueue } from './callbacks/notifying-queue.js';
import { TelegramBots } from '../telegram-bots.js';
import { TelegramBotsModule } from '../telegram-bots.module.js';
import { CHAT_MIGRATION_STORE, MemoryChatMigrationStore } from './gate/chat-migration.store.js';
import { ChatReach } from './chat-reach.js';
import { MemorySendGateStore } from './gate/memory-send-gate.store.js';
import { RedisChatMigrationStore } from './gate/redis-chat-migration.store.js';
import { RedisSendGateStore } from './gate/redis-send-gate.store.js';
import { SEND_GATE_STORE } from './gate/send-gate.store.js';
import { jobsOf } from './job-validate.js';
import { NotificationsController } from './notifications.controller.js';
import { OutboundAdmin } from './outbound-admin.service.js';
import { OutboundHealth } from './outbound-health.js';
import { OutboundMetrics } from './outbound.metrics.js';
import { OutboundService } from './outbound.service.js';
import { OutboundWorkers } from './outbound-workers.service.js';
import { MemoryOutboundQueueStore } from './queue/memory-outbound-queue.store.js';
import { OUTBOUND_QUEUE_STORE } from './queue/outbound-queue.store.js';
import { RedisOutboundQueueStore } from './queue/redis-outbound-queue.store.js';
import { PartitionOwners } from './queue/partition-owners.js';
import { rosterTimes } from './queue/redis-worker-roster.js';

/** The key base `<env>:<service>` of the service's hash tags. */
const base = (r: RedisService) => r.tag.slice(1, -1);

/** How the sender keeps chat ids in Redis (docs/security.md#ids-in-redis); warns once without a secret. */
function idCipher(c: RampartConfig): IdCipher {
  if (IdCipher.unprotected(c.redisDataSecret, c.rateLimitKeySecret))
    new Logger('Outbound').warn(
      'REDIS_DATA_KEY is not set: chat ids in Redis are encoded with a built-in key, not protected',
    );
  return IdCipher.from(c.redisDataSecret, c.rateLimitKeySecret);
}

/** The stores, services and workers of the sender, without the HTTP route (the worker process uses this). */
@Module({
  imports: [TelegramBotsModule],
  providers: [
    OutboundMetrics,
    OutboundRedis,
    {
      // The partitions this process's worker claims from (queue/partition-owners.ts).
      provide: PartitionOwners,
      inject: [TelegramBots],
      useFactory: ({ settings: { outbound: s } }: TelegramBots) =>
        new PartitionOwners(s.partitions, rosterTimes(s.leaseMs).liveMs),
    },
    {
      provide: OUTBOUND_QUEUE_STORE,
      inject: [RedisService, OutboundRedis, TelegramBots, RAMPART_CONFIG, CLOCK, PartitionOwners],
      useFactory: (
        r: RedisService,
        o: OutboundRedis,
        b: TelegramBots,
        cfg: RampartConfig,
        c: Clock,
        owners: PartitionOwners,
      ) => {
        const s = b.settings.outbound;
        const q = o.enabled
          ? new RedisOutboundQueueStore(
              o,
              base(r),
              s.partitions,
              s.retentionMs,
              idCipher(cfg),
              owners,
            )
          : new MemoryOutboundQueueStore(s.retentionMs, s.memoryMaxJobs);
        // Completion events, when an app has a callback (docs/telegram-outbound.md#completion-events).
        return Object.keys(s.callbacks.apps).length > 0
          ? new NotifyingQueue(q, new CallbackDispatcher(s.callbacks, c))
          : q;
      },
    },
    {
      provide: SEND_GATE_STORE,
      inject: [RedisService, OutboundRedis, CLOCK, RAMPART_CONFIG, TelegramBots],
      useFactory: (
        r: RedisService,
        o: OutboundRedis,
        c: Clock,
        cfg: RampartConfig,
        b: TelegramBots,
      ) =>
        o.enabled
          ? new RedisSendGateStore(
              o,
              base(r),
              c,
              IdCipher.from(cfg.redisDataSecret, cfg.rateLimitKeySecret),
            )
          : new MemorySendGateStore(c, b.settings.outbound.memoryChatEntries),
    },
    {
      provide: CHAT_MIGRATION_STORE,
      inject: [RedisService, OutboundRedis, CLOCK, RAMPART_CONFIG, TelegramBots],
      useFactory: (
        r: RedisService,
        o: OutboundRedis,
        c: Clock,
        cfg: RampartConfig,
        b: TelegramBots,
      ) =>
        o.enabled
          ? new RedisChatMigrationStore(
              o,
              base(r),
              IdCipher.from(cfg.redisDataSecret, cfg.rateLimitKeySecret),
            )
          : new MemoryChatMigrationStore(c, b.settings.outbound.memoryChatEntries),
    },
    OutboundWorkers,
    OutboundService,
    OutboundAdmin,
    OutboundHealth,
    ChatReach,
  ],
  exports: [OutboundService, OutboundAdmin, OutboundWorkers, ChatReach],
})
export class OutboundCoreModule {}

/**
 * The outbound sender: `POST /v1/notifications`, `GET /v1/notifications/:id`
 * (policy `notifications`: the rate limit charges one token per job through
 * the cost function `notifications`), the queue and the workers.
 */
@Module({
  imports: [
    OutboundCoreModule,
    RateLimitModule.forFeature({
      costs: { notifications: (req) => jobsOf(req.body)?.length ?? 1 },
    }),
  ],
  controllers: [NotificationsController],
  exports: [OutboundCoreModule],
})
export class OutboundModule {}

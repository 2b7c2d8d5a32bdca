import { afterAll, describe } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { systemClock } from '../../src/common/clock.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { MemoryChatMigrationStore } from '../../src/telegram/outbound/gate/chat-migration.store.js';
import { MemorySendGateStore } from '../../src/telegram/outbound/gate/memory-send-gate.store.js';
import { RedisChatMigrationStore } from '../../src/telegram/outbound/gate/redis-chat-migration.store.js';
import { RedisSendGateStore } from '../../src/telegram/outbound/gate/redis-send-gate.store.js';
import { MemoryOutboundQueueStore } from '../../src/telegram/outbound/queue/memory-outbound-queue.store.js';
import { RedisOutboundQueueStore } from '../../src/telegram/outbound/queue/redis-outbound-queue.store.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';
import { runGateTable, runQueueTable } from '../support/telegram-outbound-stores.table.js';
import { runChatMigrationTable } from '../support/chat-migration-store.table.js';
import { runLaneMigrationTable } from '../support/lane-migration.table.js';
import { ManualClock } from '../../src/common/clock.js';

const WEEK = 7 * 24 * 3600_000;
const services: RedisService[] = [];
let cluster: RedisClusterProcess | undefined;

/** A RedisService on the suite's Redis, or (cluster) on a 3-master Redis Cluster of this file's own. */
async function redis(on: 'standalone' | 'cluster' = 'standalone'): Promise<RedisService> {
  if (on === 'cluster') cluster ??= await startRedisCluster(3);
  const where =
    on === 'cluster'
      ? { REDIS_CLUSTER_NODES: cluster!.nodes.map((n) => `${n.host}:${n.port}`).join(',') }
      : { REDIS_URL: redisUrl() };
  const s = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      ...where,
      RAMPART_ENV: uniqueEnv('tgo'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    }),
    new MetricsService(),
  );
  await s.onModuleInit();
  services.push(s);
  return s;
}

afterAll(async () => {
  await Promise.all(services.map((s) => s.onApplicationShutdown()));
  await cluster?.stop();
});

describe('MemoryOutboundQueueStore', () => {
  runQueueTable(() => Promise.resolve(new MemoryOutboundQueueStore(WEEK)));
});

describe('MemoryOutboundQueueStore: a chat lane moved', () => {
  runLaneMigrationTable(() => Promise.resolve(new MemoryOutboundQueueStore(WEEK)));
});

describe('MemorySendGateStore', () => {
  runGateTable(() => Promise.resolve(new MemorySendGateStore(systemClock)));
});

describe('MemoryChatMigrationStore', () => {
  const clock = new ManualClock(1_800_000_000_000);
  runChatMigrationTable(
    () => Promise.resolve(new MemoryChatMigrationStore(clock, 1_000)),
    (ms) => Promise.resolve(clock.advance(ms)),
  );
});

describe.skipIf(!redisUrl())('RedisChatMigrationStore', () => {
  runChatMigrationTable(
    async () => {
      const r = await redis();
      return new RedisChatMigrationStore(r, r.tag.slice(1, -1));
    },
    (ms) => new Promise((res) => setTimeout(res, ms)),
  );
});

describe.skipIf(!redisUrl())('RedisOutboundQueueStore', () => {
  runQueueTable(async () => {
    const r = await redis();
    return new RedisOutboundQueueStore(r, r.tag.slice(1, -1), 4, WEEK);
  });
});

// Several partitions: the two lanes are mostly in two (the four steps of redis-lane-move.ts); one partition: the same hash rewritten.
describe.skipIf(!redisUrl())('RedisOutboundQueueStore: a chat lane moved', () => {
  for (const partitions of [4, 1])
    describe(`${partitions} partition(s)`, () =>
      runLaneMigrationTable(async () => {
        const r = await redis();
        return new RedisOutboundQueueStore(r, r.tag.slice(1, -1), partitions, WEEK);
      }));
});

describe.skipIf(!redisUrl())('RedisSendGateStore', () => {
  runGateTable(async () => {
    const r = await redis();
    return new RedisSendGateStore(r, r.tag.slice(1, -1), systemClock);
  });
});

// On a Cluster: the queue's partitions and the gate's keys each sit under one hash tag (one slot).
describe.skipIf(!canStartRedis())('RedisOutboundQueueStore on a Redis Cluster', () => {
  runQueueTable(async () => {
    const r = await redis('cluster');
    return new RedisOutboundQueueStore(r, r.tag.slice(1, -1), 4, WEEK);
  });
});

describe.skipIf(!canStartRedis())(
  'RedisOutboundQueueStore on a Redis Cluster: a chat lane moved',
  () => {
    runLaneMigrationTable(async () => {
      const r = await redis('cluster');
      return new RedisOutboundQueueStore(r, r.tag.slice(1, -1), 4, WEEK);
    });
  },
);

describe.skipIf(!canStartRedis())('RedisSendGateStore on a Redis Cluster', () => {
  runGateTable(async () => {
    const r = await redis('cluster');
    return new RedisSendGateStore(r, r.tag.slice(1, -1), systemClock);
  });
});

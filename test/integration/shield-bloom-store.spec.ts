import { afterAll, describe } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { RedisBloomStore } from '../../src/locks/cache-shield/store/redis-bloom.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { runBloomStoreTable } from '../support/shield-bloom-store.table.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';

describe.skipIf(!redisUrl())(RedisBloomStore.name, () => {
  const services: RedisService[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.onApplicationShutdown()));
  });

  // One RedisService (and subscriber) per case: each case gets its own env, so its keys and channel are its own.
  runBloomStoreTable(async () => {
    const redis = new RedisService(
      loadAppConfig({
        LOG_LEVEL: 'silent',
        REDIS_URL: redisUrl(),
        RAMPART_ENV: uniqueEnv('bs'),
        REDIS_COMMAND_TIMEOUT_MS: '2000',
      }),
      new MetricsService(),
    );
    await redis.onModuleInit();
    services.push(redis);
    const store = new RedisBloomStore(redis);
    return { store, filter: 'search-terms' };
  });
});

describe.skipIf(!canStartRedis())(`${RedisBloomStore.name} on a 3-master Redis Cluster`, () => {
  const services: RedisService[] = [];
  let cluster: RedisClusterProcess | undefined;

  afterAll(async () => {
    await Promise.all(services.map((s) => s.onApplicationShutdown()));
    await cluster?.stop();
  });

  // The same table: every key of a build and its pub/sub channel carry one hash tag, so no CROSSSLOT.
  runBloomStoreTable(async () => {
    cluster ??= await startRedisCluster(3);
    const nodes = cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
    const redis = new RedisService(
      loadAppConfig({
        LOG_LEVEL: 'silent',
        REDIS_CLUSTER_NODES: nodes,
        RAMPART_ENV: uniqueEnv('bc'),
        REDIS_COMMAND_TIMEOUT_MS: '2000',
      }),
      new MetricsService(),
    );
    await redis.onModuleInit();
    services.push(redis);
    return { store: new RedisBloomStore(redis), filter: 'search-terms' };
  });
});

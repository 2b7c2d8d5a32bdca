import { afterAll, beforeAll, describe } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { RedisResultCacheStore } from '../../src/locks/cache-shield/store/redis-result-cache.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { runResultCacheTable } from '../support/shield-result-cache.table.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';

describe.skipIf(!redisUrl())(RedisResultCacheStore.name, () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = new RedisService(
      loadAppConfig({
        LOG_LEVEL: 'silent',
        REDIS_URL: redisUrl(),
        REDIS_COMMAND_TIMEOUT_MS: '2000',
      }),
      new MetricsService(),
    );
    await redis.onModuleInit();
  });
  afterAll(() => redis?.onApplicationShutdown());

  runResultCacheTable(async () => ({
    store: new RedisResultCacheStore(redis),
    prefix: `shield:{${uniqueEnv('rc')}:rampart}:r`,
  }));
});

describe.skipIf(!canStartRedis())(
  `${RedisResultCacheStore.name} on a 3-master Redis Cluster`,
  () => {
    let cluster: RedisClusterProcess;
    let redis: RedisService;

    beforeAll(async () => {
      cluster = await startRedisCluster(3);
      const nodes = cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
      redis = new RedisService(
        loadAppConfig({
          LOG_LEVEL: 'silent',
          REDIS_CLUSTER_NODES: nodes,
          REDIS_COMMAND_TIMEOUT_MS: '2000',
        }),
        new MetricsService(),
      );
      await redis.onModuleInit();
    });
    afterAll(async () => {
      await redis?.onApplicationShutdown();
      await cluster?.stop();
    });

    runResultCacheTable(async () => ({
      store: new RedisResultCacheStore(redis),
      prefix: `shield:{${uniqueEnv('rc')}:rampart}:r`,
    }));
  },
);

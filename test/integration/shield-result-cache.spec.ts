import { afterAll, beforeAll, describe } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { RedisResultCacheStore } from '../../src/locks/cache-shield/cache/redis-result-cache.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { runResultCacheTable } from '../support/shield-result-cache.table.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

describe.skipIf(!redisUrl())(RedisResultCacheStore.name, () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = new RedisService(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl(), REDIS_COMMAND_TIMEOUT_MS: '2000' }), new MetricsService());
    await redis.onModuleInit();
  });
  afterAll(() => redis?.onApplicationShutdown());

  runResultCacheTable(async () => ({ store: new RedisResultCacheStore(redis), prefix: `shield:{${uniqueEnv('rc')}:rampart}:r` }));
});

import { afterAll, describe } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { RedisBloomStore } from '../../src/locks/cache-shield/store/redis-bloom.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { runBloomStoreTable } from '../support/shield-bloom-store.table.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

describe.skipIf(!redisUrl())(RedisBloomStore.name, () => {
  const services: RedisService[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.onApplicationShutdown()));
  });

  // One RedisService (and subscriber) per case: each case gets its own env, so its keys and channel are its own.
  runBloomStoreTable(async () => {
    const redis = new RedisService(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('bs'), REDIS_COMMAND_TIMEOUT_MS: '2000' }), new MetricsService());
    await redis.onModuleInit();
    services.push(redis);
    const store = new RedisBloomStore(redis);
    return { store, filter: 'search-terms' };
  });
});

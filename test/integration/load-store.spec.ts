import { afterAll, beforeAll, describe } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { ManualClock } from '../../src/common/clock.js';
import { RedisLoadStore } from '../../src/locks/rate-limit/load/redis-load.store.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { runLoadScenarios } from '../support/load-scenarios.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

describe.skipIf(!redisUrl())(RedisLoadStore.name, () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = new RedisService(
      loadAppConfig({
        LOG_LEVEL: 'silent',
        REDIS_URL: redisUrl(),
        REDIS_COMMAND_TIMEOUT_MS: '1000',
      }),
      new MetricsService(),
    );
    await redis.onModuleInit();
  });
  afterAll(() => redis?.onApplicationShutdown());

  runLoadScenarios(() => {
    const clock = new ManualClock();
    return Promise.resolve({
      store: new RedisRateLimitStore(redis, { clock: 'app', cluster: false, appClock: clock }),
      load: new RedisLoadStore(redis, clock, 'app'),
      clock,
      prefix: `rl:{${uniqueEnv()}:rampart}`,
    });
  });
});

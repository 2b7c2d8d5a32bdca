import { afterAll, beforeAll, describe } from 'vitest';
import { ManualClock } from '../../src/common/clock.js';
import { RedisLoadStore } from '../../src/locks/rate-limit/store/load/redis-load.store.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { runLoadScenarios } from '../support/load-scenarios.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { connectRedisService } from '../support/redis-service.js';

describe.skipIf(!redisUrl())(RedisLoadStore.name, () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = await connectRedisService();
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

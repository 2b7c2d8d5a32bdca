import { afterAll, beforeAll, describe } from 'vitest';
import { ManualClock } from '../../src/common/clock.js';
import { RedisRiskStore } from '../../src/locks/rate-limit/store/risk/redis-risk.store.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { connectRedisService } from '../support/redis-service.js';
import { runRiskScenarios, type RiskHarness } from '../support/risk-scenarios.js';
import { runAddressScenarios } from '../support/risk-address-scenarios.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

describe.skipIf(!redisUrl())(RedisRiskStore.name, () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = await connectRedisService();
  });
  afterAll(() => redis?.onApplicationShutdown());

  for (const batch of ['auto', 'always'] as const) {
    const make = (): Promise<RiskHarness> => {
      const clock = new ManualClock();
      return Promise.resolve({
        store: new RedisRateLimitStore(redis, {
          clock: 'app',
          cluster: false,
          appClock: clock,
          batch,
        }),
        risk: new RedisRiskStore(redis, clock, 'app'),
        clock,
        prefix: `rl:{${uniqueEnv()}:rampart}`,
      });
    };
    const script = batch === 'auto' ? 'one-request script' : 'each decision a batch of one';
    describe(`risk table (app clock passed in, so both stores see the same time; ${script})`, () =>
      runRiskScenarios(make));
    describe(`a verified subject behind a shared address (${script})`, () =>
      runAddressScenarios(make));
  }
});

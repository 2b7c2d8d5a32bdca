import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ManualClock, systemClock } from '../../src/locks/rate-limit/clock.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/redis-rate-limit.store.js';
import type { BucketSpec } from '../../src/locks/rate-limit/rate-limit.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { runStoreScenarios } from '../support/rate-limit-scenarios.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

const gcra = (key: string, capacity: number, perSec: number): BucketSpec => ({
  key, kind: 'g', capacity, intervalUs: 1e6 / perSec, cost: 1, shadow: false, soft: false, degradable: false, group: 'x',
});

describe.skipIf(!redisUrl())(RedisRateLimitStore.name, () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = new RedisService(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl(), REDIS_COMMAND_TIMEOUT_MS: '1000' }), new MetricsService());
    await redis.onModuleInit();
  });
  afterAll(() => redis?.onApplicationShutdown());

  describe('scenario table (app clock passed in, so both stores see the same time)', () => {
    runStoreScenarios(async () => {
      const clock = new ManualClock();
      const store = new RedisRateLimitStore(redis, { clock: 'app', cluster: false, appClock: clock });
      return { store, clock, ttl: (k) => redis.run('pttl', (c) => c.pttl(k)), prefix: `rl:{${uniqueEnv()}:rampart}` };
    });
  });

  describe('scenario table through the script\'s general path only (no GCRA fast path)', () => {
    runStoreScenarios(async () => {
      const clock = new ManualClock();
      const store = new RedisRateLimitStore(redis, { clock: 'app', cluster: false, appClock: clock, fastPath: false });
      return { store, clock, ttl: (k) => redis.run('pttl', (c) => c.pttl(k)), prefix: `rl:{${uniqueEnv()}:rampart}` };
    });
  });

  it('should take the time from Redis TIME and ignore a skewed app clock', async () => {
    const skewed = new ManualClock(Date.now() - 3_600_000);
    const store = new RedisRateLimitStore(redis, { clock: 'redis', cluster: false, appClock: skewed });
    const key = `rl:{${uniqueEnv()}:rampart}:user:s:a`;
    const d = await store.decide({ buckets: [gcra(key, 2, 1)], degradeAt: 0, degradeFactor: 1, degradedHint: false });
    expect(Math.abs(d.nowMs - systemClock.now())).toBeLessThan(5_000);
    const tat = Number(await redis.run('get', (c) => c.get(key)));
    expect(Math.abs(tat / 1000 - systemClock.now() - 1000)).toBeLessThan(5_000);
  });

  it('should never move a stored time backwards when an app clock lags behind', async () => {
    const clock = new ManualClock(Date.now());
    const store = new RedisRateLimitStore(redis, { clock: 'app', cluster: false, appClock: clock });
    const key = `rl:{${uniqueEnv()}:rampart}:user:s:tb`;
    const tb: BucketSpec = { ...gcra(key, 2, 1), kind: 't' };
    await store.decide({ buckets: [tb], degradeAt: 0, degradeFactor: 1, degradedHint: false });
    const ts1 = Number(await redis.run('hget', (c) => c.hget(key, 'ts')));
    clock.advance(-10_000);
    await store.decide({ buckets: [tb], degradeAt: 0, degradeFactor: 1, degradedHint: false });
    const ts2 = Number(await redis.run('hget', (c) => c.hget(key, 'ts')));
    expect(ts2).toBe(ts1);
  });
});

describe.skipIf(!canStartRedis())(`${RedisRateLimitStore.name} where Redis refuses TIME (as some managed Redis do)`, () => {
  let server: RedisProcess;
  let redis: RedisService;

  beforeAll(async () => {
    server = await startRedis(['--rename-command', 'TIME', '']);
    redis = new RedisService(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: server.url, REDIS_COMMAND_TIMEOUT_MS: '1000' }), new MetricsService());
    await redis.onModuleInit();
  });
  afterAll(async () => {
    await redis?.onApplicationShutdown();
    await server?.stop();
  });

  it('should fall back to the passed-in app time and still decide exactly', async () => {
    const clock = new ManualClock(1_900_000_000_000);
    const store = new RedisRateLimitStore(redis, { clock: 'redis', cluster: false, appClock: clock });
    const key = `rl:{${uniqueEnv()}:rampart}:user:s:a`;
    const first = await store.decide({ buckets: [gcra(key, 1, 1)], degradeAt: 0, degradeFactor: 1, degradedHint: false });
    expect(first.nowMs).toBe(1_900_000_000_000);
    clock.advance(400);
    const second = await store.decide({ buckets: [gcra(key, 1, 1)], degradeAt: 0, degradeFactor: 1, degradedHint: false });
    expect(second.allowed).toBe(false);
    expect(second.buckets[0]!.retryAfterMs).toBe(600);
  });
});

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminRedis, AdminRedisCommands } from '../../src/admin/admin-redis.js';
import type { AdminSettings } from '../../src/admin/admin-settings.js';
import { measureRedis, rateLimitKeyPattern } from '../../src/admin/observability/redis-figures.js';
import { RedisFiguresSampler } from '../../src/admin/observability/redis-figures.service.js';
import { systemClock } from '../../src/common/clock.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisUnavailableError } from '../../src/redis/redis.errors.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

describe.skipIf(!redisUrl())(`${measureRedis.name} on the suite's Redis`, () => {
  const env = uniqueEnv('fig');
  const tag = `{${env}:rampart}`;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(redisUrl());
    await redis
      .multi()
      .set(`rl:${tag}:ip:abc:search.per-ip`, '1', 'PX', 60_000)
      .set(`rl:{${env}:rampart:ip:def:search.per-ip}`, '1', 'PX', 60_000)
      .set(`rl:{${env}:rampart2}:ip:abc:other`, '1', 'PX', 60_000)
      .set(`cfg:${tag}:stats`, '1', 'PX', 60_000)
      .exec();
  });
  afterAll(() => redis.quit());

  it('should count exactly this service’s rate-limit keys, both key forms', async () => {
    const f = await measureRedis(redis, rateLimitKeyPattern(tag), 100_000_000, Date.now());
    expect(f.rateLimitKeys).toBe(2);
    expect(f.estimated).toBe(false);
    expect(f.usedMemoryBytes).toBeGreaterThan(0);
    expect(f.keys).toBeGreaterThanOrEqual(4);
  });
});

describe.skipIf(!canStartRedis())(`${measureRedis.name} past its scan budget`, () => {
  let server: RedisProcess;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
    const pipe = redis.pipeline();
    for (let i = 0; i < 20_000; i++)
      pipe.set(i % 2 === 0 ? `rl:{e:s}:ip:${i}:a` : `other:${i}`, '1', 'PX', 600_000);
    await pipe.exec();
  });
  afterAll(async () => {
    await redis.quit();
    await server.stop();
  });

  it('should estimate from the share scanned, and say so', async () => {
    const f = await measureRedis(redis, rateLimitKeyPattern('{e:s}'), 2_000, Date.now());
    expect(f.estimated).toBe(true);
    expect(f.keys).toBe(20_000);
    expect(f.rateLimitKeys).toBeGreaterThan(2_000);
    expect(f.rateLimitKeys).toBeLessThan(30_000);
  });
});

describe.skipIf(!redisUrl())(`${RedisFiguresSampler.name} on the suite's Redis`, () => {
  const tag = `{${uniqueEnv('figs')}:rampart}`;
  const settings = { redisSampleMs: 500, redisScanMaxKeys: 10_000 } as AdminSettings;
  let client: Redis;

  /** An instance's sampler; `measureFails`: its own measurement fails (the other commands run). */
  const sampler = (measureFails: boolean): RedisFiguresSampler => {
    const admin: AdminRedisCommands = {
      tag,
      run: (operation, fn) =>
        measureFails && operation === 'admin.redis_figures.measure'
          ? Promise.reject(new RedisUnavailableError(operation, 'this instance cannot measure'))
          : fn(client),
      script: () => Promise.reject(new Error('not used')),
    };
    const s = new RedisFiguresSampler(
      { enabled: true } as RedisService,
      admin as AdminRedis,
      new MetricsService(),
      settings,
      systemClock,
    );
    s.onApplicationBootstrap(); // its gauges; the timers are stopped, the test ticks by hand
    s.onApplicationShutdown();
    return s;
  };

  beforeAll(() => {
    client = new Redis(redisUrl());
  });
  afterAll(() => client.quit());

  it('should show the shared sample on an instance whose own measurement failed', async () => {
    const [one, two] = [sampler(false), sampler(true)];
    await one.tick(); // takes the lease, measures and leaves the sample
    expect(one.latest()?.usedMemoryBytes).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, settings.redisSampleMs + 100)); // the lease expires
    await two.tick(); // takes the next lease, fails to measure, still reads the shared sample
    expect(two.latest()).toEqual(one.latest());
  });
});

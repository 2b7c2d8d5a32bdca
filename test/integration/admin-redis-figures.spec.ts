import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureRedis, rateLimitKeyPattern } from '../../src/admin/observability/redis-figures.js';
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

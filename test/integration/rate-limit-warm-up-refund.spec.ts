/**
 * A warm-up bucket (kind w: a hash of tat and ws, docs/rate-limit.md#warm-up) through the real scripts: decided by
 * ratelimit_decide, given back by ratelimit_refund (what a Redis Cluster request refused in another slot does).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/common/clock.js';
import type { BucketSpec } from '../../src/locks/rate-limit/core/decision.types.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import { clockArgs, refundArgs } from '../../src/locks/rate-limit/store/redis-script-args.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { connectRedisService } from '../support/redis-service.js';

describe.skipIf(!redisUrl())('warm-up bucket in Redis (kind w)', () => {
  let redis: RedisService;
  beforeAll(async () => {
    redis = await connectRedisService();
  });
  afterAll(() => redis?.onApplicationShutdown());

  it('should store the TAT and the warm-up start, and refund the TAT with the start kept', async () => {
    const clock = new ManualClock();
    const store = new RedisRateLimitStore(redis, { clock: 'app', cluster: false, appClock: clock });
    const b: BucketSpec = {
      key: `rl:{${uniqueEnv()}:rampart}:user:u:w`,
      kind: 'w',
      capacity: 5,
      intervalUs: 1e6,
      cost: 1,
      shadow: false,
      soft: false,
      degradable: false,
      group: 'g',
      warmUpUs: 10e6,
    };
    const req = { buckets: [b], degradeAt: 0, degradeFactor: 1, degradedHint: false };
    const hash = () => redis.run('hgetall', (c) => c.hgetall(b.key));
    expect((await store.decide(req)).allowed).toBe(true);
    const before = await hash();
    // Cold: the warm-up starts now, one token costs 3 × the 1 s interval.
    expect(Number(before.tat) - Number(before.ws)).toBe(3e6);
    const second = await store.decide(req);
    expect(second.buckets[0]!.charged).toBe(3e6);
    const { keys, args } = refundArgs(
      [{ b, charged: second.buckets[0]!.charged }],
      clockArgs(clock, 'app'),
    );
    expect(await redis.script('ratelimit_refund', keys, args)).toBe(1);
    const after = await hash();
    expect({ tat: Number(after.tat), ws: after.ws }).toEqual({
      tat: Number(before.tat),
      ws: before.ws,
    });
    expect(await redis.run('pttl', (c) => c.pttl(b.key))).toBeGreaterThan(0);
  });
});

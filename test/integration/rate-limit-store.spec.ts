import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { ManualClock, systemClock } from '../../src/common/clock.js';
import { MemoryRateLimitStore } from '../../src/locks/rate-limit/store/memory-rate-limit.store.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import type { BucketSpec, DecideRequest } from '../../src/locks/rate-limit/core/decision.types.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { RateLimitClaims } from '../../src/locks/rate-limit/limiter/rate-limit-claims.js';
import type { StoreLanes } from '../../src/locks/rate-limit/store/lanes/store-lanes.js';
import { runStoreScenarios } from '../support/rate-limit-scenarios.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { connectRedisService } from '../support/redis-service.js';
import { countingRunner, gcra } from '../support/rate-limit-store-kit.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

describe.skipIf(!redisUrl())(RedisRateLimitStore.name, () => {
  let redis: RedisService;

  let claims: RateLimitClaims;

  beforeAll(async () => {
    redis = await connectRedisService();
    // The real release path (its memory side is another store's: only the Redis SET matters here).
    claims = new RateLimitClaims({} as StoreLanes, new MemoryRateLimitStore(), redis);
  });
  afterAll(() => redis?.onApplicationShutdown());

  describe('scenario table (app clock passed in, so both stores see the same time)', () => {
    runStoreScenarios(async () => {
      const clock = new ManualClock();
      const store = new RedisRateLimitStore(redis, {
        clock: 'app',
        cluster: false,
        appClock: clock,
      });
      return {
        store,
        clock,
        ttl: (k) => redis.run('pttl', (c) => c.pttl(k)),
        prefix: `rl:{${uniqueEnv()}:rampart}`,
        keepCharge: (k) => claims.releaseKey(k, { charged: true }),
      };
    });
  });

  describe("scenario table through the script's general path only (no GCRA fast path)", () => {
    runStoreScenarios(async () => {
      const clock = new ManualClock();
      const store = new RedisRateLimitStore(redis, {
        clock: 'app',
        cluster: false,
        appClock: clock,
        fastPath: false,
      });
      return {
        store,
        clock,
        ttl: (k) => redis.run('pttl', (c) => c.pttl(k)),
        prefix: `rl:{${uniqueEnv()}:rampart}`,
        keepCharge: (k) => claims.releaseKey(k, { charged: true }),
      };
    });
  });

  describe('scenario table through the batch script (each decision a batch of one)', () => {
    runStoreScenarios(async () => {
      const clock = new ManualClock();
      const store = new RedisRateLimitStore(redis, {
        clock: 'app',
        cluster: false,
        appClock: clock,
        batch: 'always',
      });
      return {
        store,
        clock,
        ttl: (k) => redis.run('pttl', (c) => c.pttl(k)),
        prefix: `rl:{${uniqueEnv()}:rampart}`,
        keepCharge: (k) => claims.releaseKey(k, { charged: true }),
      };
    });
  });

  describe('decisions that arrive in one event-loop turn (one batch call)', () => {
    /** A seeded workload: requests of 1–3 buckets over a few shared keys, costs, shadow rules and degrade. */
    function workload(prefix: string, seed: number, n: number): DecideRequest[] {
      let x = seed;
      const rnd = (k: number): number => {
        x = (x * 1103515245 + 12345) % 2147483648;
        return x % k;
      };
      // One spec per key (as in the product: a key is one rule of one subject); the global one is soft.
      const pool: BucketSpec[] = [
        { ...gcra(`${prefix}:global:-:g`, 12, 4), soft: true },
        { ...gcra(`${prefix}:user:u1:a`, 5, 2), degradable: true },
        { ...gcra(`${prefix}:user:u2:a`, 3, 0.5), degradable: true },
        gcra(`${prefix}:ip:i1:a`, 4, 1),
        { ...gcra(`${prefix}:ip:i2:a`, 2, 1), shadow: true },
        gcra(`${prefix}:ip:i3:a`, 2.5, 3),
      ];
      return Array.from({ length: n }, () => {
        const picked = new Set<number>();
        for (let k = 1 + rnd(3); picked.size < k;) picked.add(rnd(pool.length));
        const cost = 1 + rnd(3);
        const degrade = rnd(2) === 0;
        return {
          buckets: [...picked].map((i) => ({ ...pool[i]!, cost })),
          degradeAt: degrade ? 0.5 : 0,
          degradeFactor: degrade ? 0.5 : 1,
          degradedHint: false,
        };
      });
    }

    for (const maxBatch of [128, 7]) {
      it(`should decide each request exactly as one-by-one decisions would, in ${maxBatch === 128 ? 'one call' : 'calls of at most 7'} (same clock)`, async () => {
        const clock = new ManualClock();
        const { runner, calls } = countingRunner(redis);
        const store = new RedisRateLimitStore(runner, {
          clock: 'app',
          cluster: false,
          appClock: clock,
          maxBatch,
        });
        const memory = new MemoryRateLimitStore(clock);
        const prefix = `rl:{${uniqueEnv()}:rampart}`;
        for (const [round, advance] of [
          [1, 0],
          [2, 1_500],
          [3, 250],
        ] as const) {
          clock.advance(advance);
          const reqs = workload(prefix, round * 7919, 40);
          const batched = await Promise.all(reqs.map((r) => store.decide(r)));
          const oneByOne = reqs.map((r) => memory.decideSync(r));
          expect(batched).toEqual(oneByOne);
          // The workload refuses some and degrades some, so the comparison covers both.
          expect(
            batched.some((d) => !d.allowed) &&
              batched.some((d) => d.allowed) &&
              batched.some((d) => d.degraded),
          ).toBe(true);
        }
        expect(calls.get('ratelimit_decide') ?? 0).toBe(0);
        expect(calls.get('ratelimit_decide_batch')).toBe(3 * Math.ceil(40 / maxBatch));
        // Every key written lives with a TTL, and holds what the one-by-one decisions left.
        for (const b of workload(prefix, 7919, 40).flatMap((r) => r.buckets)) {
          expect(await redis.run('pttl', (c) => c.pttl(b.key))).toBeGreaterThan(0);
        }
      });
    }

    it('should admit exactly the capacity of a bucket that 100 concurrent decisions share', async () => {
      const clock = new ManualClock();
      const { runner, calls } = countingRunner(redis);
      const store = new RedisRateLimitStore(runner, {
        clock: 'app',
        cluster: false,
        appClock: clock,
      });
      const b = gcra(`rl:{${uniqueEnv()}:rampart}:global:-:g`, 10, 1);
      const ds = await Promise.all(
        Array.from({ length: 100 }, () =>
          store.decide({ buckets: [b], degradeAt: 0, degradeFactor: 1, degradedHint: false }),
        ),
      );
      expect(ds.filter((d) => d.allowed)).toHaveLength(10);
      expect(ds.filter((d) => d.allowed).map((d) => d.buckets[0]!.remaining)).toEqual([
        9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
      ]);
      // The 11th waits one interval; every refused request is told the same exact time.
      expect(new Set(ds.filter((d) => !d.allowed).map((d) => d.buckets[0]!.retryAfterMs))).toEqual(
        new Set([1000]),
      );
      expect(calls.get('ratelimit_decide_batch')).toBe(1);
    });

    it('should keep the one-request call for a decision that arrives alone', async () => {
      const { runner, calls } = countingRunner(redis);
      const store = new RedisRateLimitStore(runner, { clock: 'redis', cluster: false });
      const key = `rl:{${uniqueEnv()}:rampart}:user:s:a`;
      for (let i = 0; i < 3; i++)
        await store.decide({
          buckets: [gcra(key, 2, 1)],
          degradeAt: 0,
          degradeFactor: 1,
          degradedHint: false,
        });
      expect(calls.get('ratelimit_decide')).toBe(3);
      expect(calls.get('ratelimit_decide_batch') ?? 0).toBe(0);
    });
  });

  it('should take the time from Redis TIME and ignore a skewed app clock', async () => {
    const skewed = new ManualClock(Date.now() - 3_600_000);
    const store = new RedisRateLimitStore(redis, {
      clock: 'redis',
      cluster: false,
      appClock: skewed,
    });
    const key = `rl:{${uniqueEnv()}:rampart}:user:s:a`;
    const d = await store.decide({
      buckets: [gcra(key, 2, 1)],
      degradeAt: 0,
      degradeFactor: 1,
      degradedHint: false,
    });
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

describe.skipIf(!canStartRedis())(
  `${RedisRateLimitStore.name} where Redis refuses TIME (as some managed Redis do)`,
  () => {
    let server: RedisProcess;
    let redis: RedisService;

    beforeAll(async () => {
      server = await startRedis(['--rename-command', 'TIME', '']);
      redis = new RedisService(
        loadAppConfig({
          LOG_LEVEL: 'silent',
          REDIS_URL: server.url,
          REDIS_COMMAND_TIMEOUT_MS: '1000',
        }),
        new MetricsService(),
      );
      await redis.onModuleInit();
    });
    afterAll(async () => {
      await redis?.onApplicationShutdown();
      await server?.stop();
    });

    it('should fall back to the passed-in app time and still decide exactly', async () => {
      const clock = new ManualClock(1_900_000_000_000);
      const store = new RedisRateLimitStore(redis, {
        clock: 'redis',
        cluster: false,
        appClock: clock,
      });
      const key = `rl:{${uniqueEnv()}:rampart}:user:s:a`;
      const first = await store.decide({
        buckets: [gcra(key, 1, 1)],
        degradeAt: 0,
        degradeFactor: 1,
        degradedHint: false,
      });
      expect(first.nowMs).toBe(1_900_000_000_000);
      clock.advance(400);
      const second = await store.decide({
        buckets: [gcra(key, 1, 1)],
        degradeAt: 0,
        degradeFactor: 1,
        degradedHint: false,
      });
      expect(second.allowed).toBe(false);
      expect(second.buckets[0]!.retryAfterMs).toBe(600);
    });
  },
);

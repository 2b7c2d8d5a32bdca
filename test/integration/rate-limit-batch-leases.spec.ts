import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BucketSpec, DecideRequest } from '../../src/locks/rate-limit/core/decision.types.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { countingRunner, gcra } from '../support/rate-limit-store-kit.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, monitorCommands, startRedis } from '../support/redis-server.js';
import { connectRedisService } from '../support/redis-service.js';

/**
 * "≤ 1 Redis round trip per allowed request" with concurrency and tokens rules (issue 32): N requests decided in
 * one event-loop turn are ONE call, and their lease releases and token settlements in one turn ONE call each.
 * Every command the store sends is watched with MONITOR on our own redis-server (commands inside a script left out).
 */
describe.skipIf(!canStartRedis())(
  'rate limit with concurrency and tokens rules: Redis round trips',
  () => {
    let server: RedisProcess;
    let redis: RedisService;
    let monitor: { stop: () => void } | undefined;
    const seen: string[][] = [];
    const prefix = `rl:{${uniqueEnv('rlbl')}:rampart}`;

    beforeAll(async () => {
      server = await startRedis();
      redis = await connectRedisService({ REDIS_URL: server.url });
      monitor = await monitorCommands(server.port, ({ args, source }) => {
        if (source !== 'lua' && args.some((a) => a.startsWith(prefix))) seen.push(args);
      });
    });
    afterAll(async () => {
      monitor?.stop();
      await redis?.onApplicationShutdown();
      await server?.stop();
    });

    /** Waits until MONITOR has shown `n` commands (its output trails them a little), then a little more. */
    async function commands(n: number): Promise<string[]> {
      for (let i = 0; i < 100 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      return seen.splice(0).map((a) => a[0]!.toLowerCase());
    }

    const conc = (lease: string): BucketSpec => ({
      ...gcra(`${prefix}:service:-:inflight`, 5, 1),
      kind: 'c',
      intervalUs: 600_000_000,
      group: prefix,
      leaseId: lease,
    });
    const tok: BucketSpec = {
      ...gcra(`${prefix}:user:u:tokens`, 1000, 1),
      kind: 'k',
      intervalUs: 60_000_000,
      cost: 100,
      group: prefix,
    };
    const req = (i: number): DecideRequest => ({
      buckets: [gcra(`${prefix}:ip:i${i % 3}:rate`, 100, 1), conc(`lease-${i}`), tok],
      degradeAt: 0,
      degradeFactor: 1,
      degradedHint: false,
    });

    it('should admit N concurrent requests in one call, and give their leases and reservations back in one call each', async () => {
      const { runner, calls } = countingRunner(redis);
      const store = new RedisRateLimitStore(runner, { clock: 'redis', cluster: false });
      // Load the scripts first (the first call of each is EVALSHA refused, then EVAL).
      const warm = store.decide(req(100));
      await store.decide(req(101));
      const w = await warm;
      await store.release({ id: 'lease-100', keys: [conc('lease-100')] });
      await store.release({ id: 'lease-101', keys: [conc('lease-101')] });
      await store.settle([{ ...tok, reserved: 200, used: 200, untilUs: w.buckets[2]!.untilUs! }]);
      await commands(6);
      calls.clear();
      await redis.run('del', (c) => c.del(conc('').key, tok.key));
      expect(await commands(1)).toEqual(['del']);

      const ds = await Promise.all(Array.from({ length: 12 }, (_, i) => store.decide(req(i))));
      expect(await commands(1)).toEqual(['evalsha']);
      expect(calls.get('ratelimit_decide_batch')).toBe(1);
      // Five slots: the first five in, the others refused by the concurrency rule and holding nothing.
      const allowed = ds.flatMap((d, i) => (d.allowed ? [i] : []));
      expect(allowed).toEqual([0, 1, 2, 3, 4]);
      expect(ds.slice(5).every((d) => d.blocker === 1)).toBe(true);
      expect((await redis.run('zrange', (c) => c.zrange(conc('').key, '0', '-1'))).sort()).toEqual(
        allowed.map((i) => `lease-${i}`).sort(),
      );
      expect(await redis.run('hget', (c) => c.hget(tok.key, 'c'))).toBe('500');
      // (our own two reads)
      expect(await commands(2)).toEqual(['zrange', 'hget']);

      // The answers end in one turn: one release call, one settlement call.
      await Promise.all(
        allowed.map((i) => store.release({ id: `lease-${i}`, keys: [conc(`lease-${i}`)] })),
      );
      await store.settle(
        allowed.map((i) => ({
          ...tok,
          reserved: 100,
          used: 10,
          untilUs: ds[i]!.buckets[2]!.untilUs!,
        })),
      );
      expect(await commands(2)).toEqual(['evalsha', 'evalsha']);
      expect(calls.get('ratelimit_release')).toBe(1);
      expect(calls.get('ratelimit_settle')).toBe(1);
      expect(await redis.run('zcard', (c) => c.zcard(conc('').key))).toBe(0);
      expect(await redis.run('hget', (c) => c.hget(tok.key, 'c'))).toBe('50');
    });
  },
);

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/common/clock.js';
import type { BucketSpec } from '../../src/locks/rate-limit/core/decision.types.js';
import { MAX_USAGE_MODELS, usageWrites } from '../../src/locks/rate-limit/core/usage-keys.js';
import { MemoryRateLimitStore } from '../../src/locks/rate-limit/store/memory-rate-limit.store.js';
import type { RateLimitStore } from '../../src/locks/rate-limit/store/rate-limit.store.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { countingRunner, gcra } from '../support/rate-limit-store-kit.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, monitorCommands, startRedis } from '../support/redis-server.js';
import { connectRedisService } from '../support/redis-service.js';

/**
 * Usage recorded in the settle call (docs/quotas.md#usage-and-spend): the settlements of answers that end in one
 * event-loop turn, with their usage, are ONE `ratelimit_settle` call, as many as without usage (MONITOR on our own
 * redis-server, commands inside a script left out); the buckets read back as written, on Redis and in memory alike,
 * and a hash past MAX_USAGE_MODELS models counts new ones as `other`.
 */
describe.skipIf(!canStartRedis())('usage in the settle call: Redis round trips', () => {
  let server: RedisProcess;
  let redis: RedisService;
  let monitor: { stop: () => void } | undefined;
  const seen: string[][] = [];
  const tag = `{${uniqueEnv('rlus')}:rampart}`;
  const prefix = `rl:${tag}`;

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

  async function commands(n: number): Promise<string[]> {
    for (let i = 0; i < 100 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    return seen.splice(0).map((a) => a[0]!.toLowerCase());
  }

  const tok = (user: string): BucketSpec => ({
    ...gcra(`${prefix}:user:${user}:tokens`, 100_000, 1),
    kind: 'k',
    intervalUs: 60_000_000,
    cost: 100,
    group: tag,
  });
  const NOW = Date.UTC(2026, 11, 6, 10, 20);
  const usage = (user: string, model = 'gpt-4o-mini') =>
    usageWrites(tag, { app: 'acme', user, model, prompt: 7, completion: 3, spend: 48 }, NOW);

  /** Decides one request per user, then settles them all in one turn (with or without usage): its commands. */
  async function round(store: RateLimitStore, users: string[], withUsage: boolean) {
    const ds = await Promise.all(
      users.map((u) =>
        store.decide({ buckets: [tok(u)], degradeAt: 0, degradeFactor: 1, degradedHint: false }),
      ),
    );
    await commands(users.length);
    await Promise.all(
      users.map((u, i) =>
        store.settle(
          [{ ...tok(u), reserved: 100, used: 10, untilUs: ds[i]!.buckets[0]!.untilUs! }],
          withUsage ? usage(u) : [],
        ),
      ),
    );
    return commands(1);
  }

  it('should write the usage of answers ending together in the one settle call, and read it back', async () => {
    const { runner, calls } = countingRunner(redis);
    const store = new RedisRateLimitStore(runner, { clock: 'redis', cluster: false });
    await round(store, ['w1'], true); // loads the scripts
    calls.clear();
    const without = await round(store, ['a1', 'a2', 'a3', 'a4'], false);
    const settleWithout = calls.get('ratelimit_settle');
    calls.clear();
    const withUsage = await round(store, ['b1', 'b2', 'b3', 'b4'], true);
    expect(withUsage).toEqual(without);
    expect(withUsage).toEqual(['evalsha']);
    expect(calls.get('ratelimit_settle')).toBe(settleWithout);
    expect(calls.get('ratelimit_settle')).toBe(1);
    const keys = usage('b1').map((w) => w.key);
    const read = await store.readUsage(keys);
    const memory = new MemoryRateLimitStore(systemClock);
    for (const u of ['w1', 'b1', 'b2', 'b3', 'b4']) await memory.settle([], usage(u));
    expect(await memory.readUsage(keys)).toEqual(read);
    // app hour, user hour, app day, user day: the app's totals hold b1..b4 (and w1).
    expect(read[1]).toEqual({ 'gpt-4o-mini:p': '7', 'gpt-4o-mini:c': '3', 'gpt-4o-mini:s': '48' });
    expect(read[0]!['gpt-4o-mini:p']).toBe('35');
    const ttl = await redis.run('pttl', (c) => c.pttl(keys[2]!));
    expect(ttl).toBeGreaterThan(400 * 86_400_000 - 86_400_000);
  });

  it('should count models past the cap of one bucket as other, on Redis and in memory', async () => {
    const store = new RedisRateLimitStore(redis, { clock: 'redis', cluster: false });
    const memory = new MemoryRateLimitStore(systemClock);
    const writes = Array.from(
      { length: MAX_USAGE_MODELS + 3 },
      (_, i) => usage('cap', `m${i}`)[1]!,
    );
    await store.settle([], writes);
    await memory.settle([], writes);
    const [h] = await store.readUsage([writes[0]!.key]);
    expect(Object.keys(h!)).toHaveLength((MAX_USAGE_MODELS + 1) * 3);
    expect(h!['other:p']).toBe('21');
    expect(await memory.readUsage([writes[0]!.key])).toEqual([h]);
  });
});

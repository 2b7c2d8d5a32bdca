/**
 * Token budgets never overshot (docs/rate-limit.md#token-rules): rounds of 200 concurrent reservations of
 * 1 500 tokens (prompt 500 + max_tokens 1 000) against a 10 000-token budget, each admitted one settled to a random
 * usage up to its reservation, until the budget refuses everything: the tokens charged never pass the budget, and
 * what is left is exactly the budget less what was charged. On a private redis-server (Redis TIME) and on the
 * memory store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { systemClock } from '../../src/common/clock.js';
import type { BucketSpec } from '../../src/locks/rate-limit/core/decision.types.js';
import { MemoryRateLimitStore } from '../../src/locks/rate-limit/store/memory-rate-limit.store.js';
import type { RateLimitStore } from '../../src/locks/rate-limit/store/rate-limit.store.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

const BUDGET = 10_000;
const RESERVE = 1_500;
const CONCURRENT = 200;

const budget = (key: string, cost: number): BucketSpec => ({
  key,
  kind: 'k',
  capacity: BUDGET,
  intervalUs: 86_400_000_000,
  cost,
  shadow: false,
  soft: false,
  degradable: false,
  group: 'x',
});
const ask = (b: BucketSpec) => ({
  buckets: [b],
  degradeAt: 0,
  degradeFactor: 1,
  degradedHint: false,
});

/** Rounds until the budget refuses every request: the total charged and what a refused probe says is left. */
async function spend(
  store: RateLimitStore,
  key: string,
): Promise<{ charged: number; left: number; admitted: number }> {
  let charged = 0;
  let admitted = 0;
  for (let round = 0; round < 50; round++) {
    const ds = await Promise.all(
      Array.from({ length: CONCURRENT }, () => store.decide(ask(budget(key, RESERVE)))),
    );
    const ok = ds.filter((d) => d.allowed);
    // Never more reserved at once than the budget holds (nothing of this round settled yet).
    expect(ok.length * RESERVE).toBeLessThanOrEqual(BUDGET - charged);
    if (ok.length === 0) break;
    admitted += ok.length;
    const used = ok.map(() => Math.floor(Math.random() * (RESERVE + 1)));
    charged += used.reduce((s, u) => s + u, 0);
    await Promise.all(
      ok.map((d, i) =>
        store.settle([
          { key, group: 'x', reserved: RESERVE, used: used[i]!, untilUs: d.buckets[0]!.untilUs! },
        ]),
      ),
    );
  }
  const probe = await store.decide(ask(budget(key, BUDGET + 1)));
  expect(probe.allowed).toBe(false);
  return { charged, left: probe.buckets[0]!.remaining, admitted };
}

describe('token budgets under concurrency', () => {
  it('should never pass the budget on the memory store, and leave exactly the budget less what was charged', async () => {
    const r = await spend(new MemoryRateLimitStore(systemClock), 'rl:{m:rampart}:user:s:tokens');
    expect(r.charged).toBeLessThanOrEqual(BUDGET);
    expect(r.left).toBe(BUDGET - r.charged);
    expect(r.admitted).toBeGreaterThan(BUDGET / RESERVE);
  });

  describe.skipIf(!canStartRedis())('on a private redis-server', () => {
    let server: RedisProcess;
    let redis: RedisService;

    beforeAll(async () => {
      server = await startRedis();
      redis = new RedisService(
        loadAppConfig({
          LOG_LEVEL: 'silent',
          REDIS_URL: server.url,
          REDIS_COMMAND_TIMEOUT_MS: '2000',
        }),
        new MetricsService(),
      );
      await redis.onModuleInit();
    });
    afterAll(async () => {
      await redis?.onApplicationShutdown();
      await server?.stop();
    });

    it('should never pass the budget, and leave exactly the budget less what was charged', async () => {
      const store = new RedisRateLimitStore(redis, { clock: 'redis', cluster: false });
      const r = await spend(store, `rl:{${uniqueEnv()}:rampart}:user:s:tokens`);
      expect(r.charged).toBeLessThanOrEqual(BUDGET);
      expect(r.left).toBe(BUDGET - r.charged);
      expect(r.admitted).toBeGreaterThan(BUDGET / RESERVE);
    });
  });
});

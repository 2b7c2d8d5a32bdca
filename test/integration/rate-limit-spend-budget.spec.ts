/**
 * Spend budgets never overshot (docs/quotas.md#spend-budgets): a `count: spend` tokens rule reserves the request's
 * most spend (prompt × prompt price + max_tokens × completion price, `tokensFor`) and settles to usage × price
 * (`usedBy`). Rounds of 200 concurrent reservations against a $0.05 budget (50 000 µ$), each admitted one settled to
 * a random usage, until the budget refuses everything: the spend charged never passes the budget, and what is left is
 * exactly the budget less what was charged. On a private redis-server (Redis TIME) and on the memory store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { systemClock } from '../../src/common/clock.js';
import type { BucketSpec } from '../../src/locks/rate-limit/core/decision.types.js';
import { usedBy } from '../../src/locks/rate-limit/limiter/reserved-tokens.js';
import { tokensFor } from '../../src/locks/rate-limit/rules/request-buckets.js';
import { MemoryRateLimitStore } from '../../src/locks/rate-limit/store/memory-rate-limit.store.js';
import type { RateLimitStore } from '../../src/locks/rate-limit/store/rate-limit.store.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

const BUDGET = 50_000;
const PRICE = { prompt: 2.5, completion: 10 };
const ASK = { prompt: 333, completion: 400, price: PRICE };
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
const decision = (b: BucketSpec) => ({
  buckets: [b],
  degradeAt: 0,
  degradeFactor: 1,
  degradedHint: false,
});

async function spend(store: RateLimitStore, key: string) {
  const reserve = tokensFor('spend', ASK);
  let charged = 0;
  let admitted = 0;
  for (let round = 0; round < 50; round++) {
    const ds = await Promise.all(
      Array.from({ length: CONCURRENT }, () => store.decide(decision(budget(key, reserve)))),
    );
    const ok = ds.filter((d) => d.allowed);
    expect(ok.length * reserve).toBeLessThanOrEqual(BUDGET - charged);
    if (ok.length === 0) break;
    admitted += ok.length;
    const used = ok.map(() =>
      usedBy(
        'spend',
        {
          prompt: Math.floor(Math.random() * (ASK.prompt + 1)),
          completion: Math.floor(Math.random() * (ASK.completion + 1)),
        },
        PRICE,
      ),
    );
    charged += used.reduce((s, u) => s + u, 0);
    await Promise.all(
      ok.map((d, i) =>
        store.settle([
          { key, group: 'x', reserved: reserve, used: used[i]!, untilUs: d.buckets[0]!.untilUs! },
        ]),
      ),
    );
  }
  const probe = await store.decide(decision(budget(key, BUDGET + 1)));
  expect(probe.allowed).toBe(false);
  return { charged, left: probe.buckets[0]!.remaining, admitted, reserve };
}

describe('spend budgets under concurrency', () => {
  it('should reserve the most spend and charge usage × price, in whole micro-dollars', () => {
    // 333 × 2.5 + 400 × 10 = 4 832.5 → 4 833 µ$ reserved; 100 × 2.5 + 7 × 10 = 320 µ$ charged.
    expect(tokensFor('spend', ASK)).toBe(4_833);
    expect(usedBy('spend', { prompt: 100, completion: 7 }, PRICE)).toBe(320);
    expect(usedBy('spend', { prompt: 100, completion: 7 })).toBe(0);
  });

  it('should never pass the budget on the memory store, and leave exactly the budget less what was charged', async () => {
    const r = await spend(new MemoryRateLimitStore(systemClock), 'rl:{m:rampart}:user:s:spend');
    expect(r.charged).toBeLessThanOrEqual(BUDGET);
    expect(r.left).toBe(BUDGET - r.charged);
    expect(r.admitted).toBeGreaterThan(BUDGET / r.reserve);
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
      const r = await spend(store, `rl:{${uniqueEnv()}:rampart}:user:s:spend`);
      expect(r.charged).toBeLessThanOrEqual(BUDGET);
      expect(r.left).toBe(BUDGET - r.charged);
      expect(r.admitted).toBeGreaterThan(BUDGET / r.reserve);
    });
  });
});

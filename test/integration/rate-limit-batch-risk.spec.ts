import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/common/clock.js';
import { MemoryRiskStore } from '../../src/locks/rate-limit/store/risk/memory-risk.store.js';
import { RedisRiskStore } from '../../src/locks/rate-limit/store/risk/redis-risk.store.js';
import { observeParams, riskParams } from '../../src/locks/rate-limit/core/risk-params.js';
import { defaultRiskSettings } from '../../src/locks/rate-limit/settings/risk.settings.js';
import type { RiskObservation } from '../../src/locks/rate-limit/core/risk.types.js';
import { MemoryRateLimitStore } from '../../src/locks/rate-limit/store/memory-rate-limit.store.js';
import type { BucketSpec, DecideRequest } from '../../src/locks/rate-limit/core/decision.types.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { connectRedisService } from '../support/redis-service.js';
import { countingRunner, gcra } from '../support/rate-limit-store-kit.js';

const SETTINGS = { ...defaultRiskSettings(), pointDecayMs: 1_000 };
const PARAMS = [riskParams(SETTINGS, undefined), riskParams(SETTINGS, 'pro')];

/**
 * Risk-scored decisions take the batch script too (one call for a turn's decisions, risk
 * records read once): each must be decided exactly as one-by-one decisions of the memory
 * store on the same records would be, scores, bands and record touches included.
 */
describe.skipIf(!redisUrl())('ratelimit_decide_batch with risk-scored requests', () => {
  let redis: RedisService;
  beforeAll(async () => {
    redis = await connectRedisService();
  });
  afterAll(() => redis?.onApplicationShutdown());

  /** A seeded workload over 6 buckets and 4 records (one never seen before the batch). */
  function workload(prefix: string, seed: number, n: number): DecideRequest[] {
    let x = seed;
    const rnd = (k: number): number => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x % k;
    };
    const pool: BucketSpec[] = [
      { ...gcra(`${prefix}:global:-:g`, 30, 10), soft: true },
      { ...gcra(`${prefix}:ip:i0:a`, 6, 2), degradable: true, risky: true },
      { ...gcra(`${prefix}:ip:i1:a`, 4, 1), risky: true },
      { ...gcra(`${prefix}:ip:i2:a`, 5, 0.5), risky: true, degradable: true },
      { ...gcra(`${prefix}:ip:i3:a`, 3, 3), risky: true },
      gcra(`${prefix}:app:a1:a`, 8, 4),
    ];
    return Array.from({ length: n }, () => {
      const picked = new Set<number>();
      for (let k = 1 + rnd(3); picked.size < k;) picked.add(rnd(pool.length));
      const cost = 1 + rnd(2);
      const degrade = rnd(2) === 0;
      const buckets = [...picked].map((i) => ({ ...pool[i]!, cost }));
      const records = [...picked]
        .filter((i) => i >= 1 && i <= 4)
        .map((i) => `${prefix}:risk:ip:i${i - 1}`);
      const req: DecideRequest = {
        buckets,
        degradeAt: degrade ? 0.5 : 0,
        degradeFactor: degrade ? 0.5 : 1,
        degradedHint: false,
      };
      // Some requests verified: their first records are verified subjects', the others unproven (an address).
      const verified = Math.min(rnd(3), records.length);
      if (records.length > 0) req.risk = { keys: records, params: PARAMS[rnd(2)]!, verified };
      else for (const b of buckets) delete b.risky;
      return req;
    });
  }

  for (const maxBatch of [128, 5]) {
    it(`should decide each scored request exactly as one-by-one decisions would (batches of ≤ ${maxBatch})`, async () => {
      const clock = new ManualClock();
      const { runner, calls } = countingRunner(redis);
      const store = new RedisRateLimitStore(runner, {
        clock: 'app',
        cluster: false,
        appClock: clock,
        maxBatch,
      });
      const memory = new MemoryRateLimitStore(clock);
      const risks = [
        new RedisRiskStore(redis, clock, 'app'),
        new MemoryRiskStore(memory.risk, clock),
      ];
      const prefix = `rl:{${uniqueEnv()}:rampart}`;
      // Scores: i0 new + 1 (11 → ×1), i1 2 bad signatures (20 → ×0.5), i2 10 + 5 junk (70 → ×0.2), i3 unseen.
      const seed: RiskObservation[] = [
        {
          kind: 'signal',
          key: `${prefix}:risk:ip:i1`,
          signal: 'bad_signature',
          count: 2,
          points: 10,
        },
        {
          kind: 'signal',
          key: `${prefix}:risk:ip:i2`,
          signal: 'bad_signature',
          count: 10,
          points: 50,
        },
        {
          kind: 'signal',
          key: `${prefix}:risk:ip:i2`,
          signal: 'bloom_absent',
          count: 5,
          points: 5,
        },
        { kind: 'signal', key: `${prefix}:risk:ip:i0`, signal: 'not_found', count: 1, points: 1 },
      ];
      for (const r of risks) await r.observe(seed, observeParams(SETTINGS));
      const multipliers = new Set<number>();
      for (const [round, advance] of [
        [1, 0],
        [2, 1_500],
        [3, 3_700_000], // past the touch interval: records are refreshed
      ] as const) {
        clock.advance(advance);
        const reqs = workload(prefix, round * 7919, 40);
        const batched = await Promise.all(reqs.map((r) => store.decide(r)));
        const oneByOne = reqs.map((r) => memory.decideSync(r));
        expect(batched).toEqual(oneByOne);
        for (const d of batched) if (d.risk) multipliers.add(d.risk.multiplier);
        expect(batched.some((d) => !d.allowed) && batched.some((d) => d.allowed)).toBe(true);
      }
      // The workload meets several bands, so scaled capacities are compared too.
      expect(multipliers.size).toBeGreaterThan(1);
      expect(calls.get('ratelimit_decide') ?? 0).toBe(0);
      expect(calls.get('ratelimit_decide_batch')).toBe(3 * Math.ceil(40 / maxBatch));
      // The records hold what the one-by-one decisions left (first sight and refresh times).
      for (const i of [0, 1, 2, 3]) {
        const key = `${prefix}:risk:ip:i${i}`;
        const [a, b] = await Promise.all(risks.map((r) => r.read(key)));
        expect({ f: a?.f, t: a?.t, s: a?.s }).toEqual({ f: b?.f, t: b?.t, s: b?.s });
        expect(a?.f).toBeDefined();
      }
    });
  }
});

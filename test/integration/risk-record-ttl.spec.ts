/**
 * Quiet risk records expire on their own in Redis (docs/quotas.md#how-long-a-record-lives): a record younger than
 * one reputation period (a day) lives the quiet TTL (hours), so a flood of made-up subjects leaves nothing behind
 * after it; only a record a day old (reputation earned) lives `ttl` (30 days). Read from a redis-server of its own
 * (PTTL), with both decision scripts and the observe script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/common/clock.js';
import type { BucketSpec } from '../../src/locks/rate-limit/core/decision.types.js';
import {
  observeParams,
  quietTtlMs,
  riskParams,
} from '../../src/locks/rate-limit/core/risk-params.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import { RedisRiskStore } from '../../src/locks/rate-limit/store/risk/redis-risk.store.js';
import { defaultRiskSettings } from '../../src/locks/rate-limit/settings/risk.settings.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { type RedisProcess, redisServerAvailable, startRedis } from '../support/redis-server.js';
import { connectRedisService } from '../support/redis-service.js';

const SETTINGS = defaultRiskSettings();
const QUIET = quietTtlMs(SETTINGS);
const DAY = 86_400_000;

describe.skipIf(!redisServerAvailable())('risk records in Redis: quiet ones expire', () => {
  let server: RedisProcess;
  let redis: RedisService;

  beforeAll(async () => {
    server = await startRedis();
    redis = await connectRedisService({ REDIS_URL: server.url });
  });
  afterAll(async () => {
    await redis?.onApplicationShutdown();
    await server?.stop();
  });

  const pttl = (key: string): Promise<number> => redis.run('pttl', (c) => c.pttl(key));

  it('should derive the quiet TTL from the risk parameters: hours, above a touch interval and a full decay', () => {
    expect(QUIET).toBe(2 * 3_600_000);
    expect(QUIET).toBeGreaterThanOrEqual(SETTINGS.maxScore * SETTINGS.pointDecayMs);
    expect(QUIET).toBeGreaterThanOrEqual(SETTINGS.newSubjectMs);
    expect(QUIET).toBeLessThan(SETTINGS.ttlMs / 100);
    expect(quietTtlMs({ ...SETTINGS, ttlMs: 60_000 })).toBe(60_000);
  });

  for (const batch of ['auto', 'always'] as const) {
    describe(batch === 'auto' ? 'one-request script' : 'batch script', () => {
      let n = 0;
      const harness = () => {
        const clock = new ManualClock();
        const prefix = `rl:{ttl${batch}${++n}:rampart}`;
        const store = new RedisRateLimitStore(redis, {
          clock: 'app',
          cluster: false,
          appClock: clock,
          batch,
        });
        const risk = new RedisRiskStore(redis, clock, 'app');
        const bucket = (subject: string): BucketSpec => ({
          key: `${prefix}:user:${subject}:t`,
          kind: 'g',
          capacity: 10,
          intervalUs: 1e6,
          cost: 1,
          shadow: false,
          soft: false,
          degradable: false,
          risky: true,
          group: prefix.slice(3),
        });
        const rk = (subject: string): string => `${prefix}:risk:user:${subject}`;
        const decide = (subject: string) =>
          store.decide({
            buckets: [bucket(subject)],
            degradeAt: 0,
            degradeFactor: 1,
            degradedHint: false,
            risk: { keys: [rk(subject)], params: riskParams(SETTINGS, undefined) },
          });
        return { clock, risk, rk, decide, prefix };
      };

      it('should give every record of a flood of made-up subjects the quiet TTL, not 30 days', async () => {
        const h = harness();
        for (let i = 0; i < 200; i++) await h.decide(`made-up-${i}`);
        const keys = await redis.run('keys', (c) => c.keys(`${h.prefix}:risk:*`));
        expect(keys).toHaveLength(200);
        const ttls = await Promise.all(keys.map(pttl));
        expect(Math.max(...ttls)).toBeLessThanOrEqual(QUIET);
        expect(Math.min(...ttls)).toBeGreaterThan(QUIET - 60_000);
      });

      it('should give a young record raised by signals the quiet TTL, and an old one `ttl` (30 days)', async () => {
        const h = harness();
        const p = observeParams(SETTINGS);
        const signal = (subject: string) =>
          h.risk.observe(
            [{ kind: 'signal', key: h.rk(subject), signal: 'bad_signature', count: 2, points: 10 }],
            p,
          );
        await signal('never-seen'); // a record created by a signal alone
        expect(await pttl(h.rk('never-seen'))).toBeLessThanOrEqual(QUIET);
        await h.decide('regular');
        h.clock.advance(DAY + 1);
        await signal('regular'); // first seen a day ago: reputation earned, kept for its 30 days
        expect(await pttl(h.rk('regular'))).toBeGreaterThan(SETTINGS.ttlMs - 60_000);
      });

      it('should keep an active subject: refreshed at each touch while young, `ttl` once a day old', async () => {
        const h = harness();
        await h.decide('active');
        for (let hour = 1; hour <= 25; hour++) {
          h.clock.advance(3_600_000);
          await h.decide('active'); // a touch every hour: the record never lapses
          const ttl = await pttl(h.rk('active'));
          if (hour < 24) expect(ttl).toBeLessThanOrEqual(QUIET);
          else expect(ttl).toBeGreaterThan(SETTINGS.ttlMs - 60_000);
        }
        const rec = await h.risk.read(h.rk('active'));
        expect(rec?.f).toBe(1_000 * (h.clock.now() - 25 * 3_600_000)); // the same record all along
      });
    });
  }
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { ManualClock } from '../../src/common/clock.js';
import { observeParams } from '../../src/locks/rate-limit/core/risk-params.js';
import { QuotaMetrics } from '../../src/locks/rate-limit/quota.metrics.js';
import { rateLimitSettings } from '../../src/locks/rate-limit/rate-limit.settings.js';
import { RiskBatches } from '../../src/locks/rate-limit/risk/risk-batches.js';
import { RateLimitPeers } from '../../src/locks/rate-limit/store/lanes/rate-limit-peers.service.js';
import { RedisRiskStore } from '../../src/locks/rate-limit/store/risk/redis-risk.store.js';
import { RedisLoadStore } from '../../src/locks/rate-limit/store/load/redis-load.store.js';
import { defaultLoadSettings } from '../../src/locks/rate-limit/settings/load.settings.js';
import { defaultRiskSettings } from '../../src/locks/rate-limit/settings/risk.settings.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { HeartbeatRiders } from '../../src/redis/heartbeat-riders.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';

/**
 * Issue 33: the risk observations of verified requests (payload, chat) cost no Redis call of their own:
 * they ride on the next instance heartbeat (one `ratelimit_instance` call), on a single Redis and on a
 * Redis Cluster (every key under the service's hash tag: no CROSSSLOT), and their signals are raised.
 */
function rideSuite(name: string, env: () => Record<string, string>): void {
  describe(name, () => {
    let redis: RedisService;
    let peers: RateLimitPeers;
    let riders: HeartbeatRiders;
    let batches: RiskBatches;
    let store: RedisRiskStore;
    const metrics = new MetricsService();
    const clock = new ManualClock(Date.now());

    beforeAll(async () => {
      const config = loadAppConfig({
        LOG_LEVEL: 'silent',
        REDIS_COMMAND_TIMEOUT_MS: '1000',
        RAMPART_ENV: uniqueEnv('ride'),
        ...env(),
      });
      redis = new RedisService(config, metrics);
      await redis.onModuleInit();
      riders = new HeartbeatRiders();
      peers = new RateLimitPeers(redis, config, rateLimitSettings(config), metrics, clock, riders);
      riders.beating(4_000); // the heartbeat's period, without its timer: the test beats by hand
      store = new RedisRiskStore(redis, clock, 'app');
      const params = observeParams(defaultRiskSettings());
      batches = new RiskBatches(store, params, riders, new QuotaMetrics(metrics));
    }, 60_000);
    afterAll(async () => {
      batches?.unride();
      await redis?.onApplicationShutdown();
    });

    it('should write a repeated payload and a chat spread with the heartbeat, in its one call', async () => {
      const key = `rl:${redis.tag}:risk:user:ride1`;
      const script = vi.spyOn(redis, 'script');
      const payload = {
        kind: 'payload',
        key,
        marker: `rl:${redis.tag}:riskp:user:ride1:h`,
      } as const;
      batches.push(store, payload, 5_000);
      batches.push(store, payload, 5_000);
      for (let i = 0; i < 7; i++)
        batches.push(
          store,
          { kind: 'chat', key, set: `rl:${redis.tag}:riskc:user:ride1`, member: `c${i}` },
          5_000,
        );
      expect(script).not.toHaveBeenCalled(); // queued, no call of their own
      await peers.beat();
      expect(script.mock.calls.map((c) => c[0])).toEqual(['ratelimit_instance']);
      const record = await store.read(key);
      expect(record?.signals.repeated_payload?.count).toBe(1);
      expect(record?.signals.chat_spread?.count).toBeGreaterThanOrEqual(1);
      script.mockRestore();
    });

    it('should compute the shared load level in the same call, as ratelimit_load does', async () => {
      const loads = new RedisLoadStore(redis, clock, 'app');
      const s = defaultLoadSettings(); // soft at 0.7
      const bucket = `rl:${redis.tag}:global:-:ride.g`;
      // A GCRA bucket of 10 tokens at 10/s, 80 % full at the app clock (its TAT 0.8 s ahead).
      await redis.run('test', (c) =>
        c.set(bucket, String(clock.now() * 1000 + 800_000), 'PX', 60_000),
      );
      const buckets = [
        { policy: 'ride', key: bucket, kind: 'g' as const, capacity: 10, intervalUs: 1e5 },
      ];
      const req = loads.request(`rl:${redis.tag}:load:ride`, buckets, s);
      const got: unknown[] = [];
      const unread = riders.setReader({ read: () => ({ ...req, answered: (r) => got.push(r) }) });
      const key = `rl:${redis.tag}:risk:user:ride3`;
      const payload = {
        kind: 'payload',
        key,
        marker: `rl:${redis.tag}:riskp:user:ride3:h`,
      } as const;
      batches.push(store, payload, 5_000);
      batches.push(store, payload, 5_000);
      const script = vi.spyOn(redis, 'script');
      await peers.beat();
      unread();
      expect(script.mock.calls.map((c) => c[0])).toEqual(['ratelimit_instance']);
      script.mockRestore();
      expect(got).toHaveLength(1);
      const viaBeat = req.parse(got[0]);
      expect(viaBeat).toMatchObject({ level: 'soft', source: 'ride' });
      expect(viaBeat.fill).toBeCloseTo(0.8, 5);
      const own = await loads.compute(`rl:${redis.tag}:load:ride`, buckets, s);
      expect(own).toEqual(viaBeat);
      expect((await store.read(key))?.signals.repeated_payload?.count).toBe(1);
    });

    it('should still write a signal at once, on its own', async () => {
      const key = `rl:${redis.tag}:risk:user:ride2`;
      batches.push(store, { kind: 'signal', key, signal: 'not_found', count: 1, points: 1 }, 20);
      await vi.waitFor(async () =>
        expect((await store.read(key))?.signals.not_found?.count).toBe(1),
      );
    });
  });
}

describe.skipIf(!redisUrl())(`${RiskBatches.name} riding on the heartbeat`, () => {
  rideSuite('single Redis', () => ({ REDIS_URL: redisUrl() }));

  describe.skipIf(!canStartRedis())('3-master Redis Cluster', () => {
    let cluster: RedisClusterProcess | undefined;
    beforeAll(async () => {
      cluster = await startRedisCluster(3);
    }, 60_000);
    afterAll(() => cluster?.stop());
    rideSuite('cluster', () => ({
      REDIS_CLUSTER_NODES: cluster!.nodes.map((n) => `${n.host}:${n.port}`).join(','),
    }));
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { ManualClock } from '../../src/common/clock.js';
import { RedisRateLimitStore } from '../../src/locks/rate-limit/store/redis-rate-limit.store.js';
import {
  BucketSpec,
  DecideRequest,
  toldKey,
} from '../../src/locks/rate-limit/core/decision.types.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';

const bucket = (key: string, capacity: number, group: string): BucketSpec => ({
  key,
  kind: 'g',
  capacity,
  intervalUs: 1e6,
  cost: 1,
  shadow: false,
  soft: false,
  degradable: false,
  group,
});
const req = (buckets: BucketSpec[]): DecideRequest => ({
  buckets,
  degradeAt: 0,
  degradeFactor: 1,
  degradedHint: false,
});
const tagOf = (key: string): string => /\{[^}]*\}/.exec(key)![0];

describe.skipIf(!canStartRedis())(`${RedisRateLimitStore.name} on a 3-master Redis Cluster`, () => {
  let cluster: RedisClusterProcess;
  let redis: RedisService;
  const nodes = (): string => cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    redis = new RedisService(
      loadAppConfig({
        LOG_LEVEL: 'silent',
        REDIS_CLUSTER_NODES: nodes(),
        REDIS_COMMAND_TIMEOUT_MS: '1000',
      }),
      new MetricsService(),
    );
    await redis.onModuleInit();
  }, 60_000);
  afterAll(async () => {
    await redis?.onApplicationShutdown();
    await cluster?.stop();
  });

  const slot = (key: string): Promise<number> =>
    redis.run('keyslot', (c) => c.call('CLUSTER', 'KEYSLOT', key) as Promise<number>);

  it('should decide buckets that share the service hash tag in one call, all or nothing', async () => {
    const env = uniqueEnv();
    const clock = new ManualClock();
    const store = new RedisRateLimitStore(redis, { clock: 'app', cluster: true, appClock: clock });
    const a = bucket(`rl:{${env}:rampart}:ip:x:a`, 5, `{${env}:rampart}`);
    const b = bucket(`rl:{${env}:rampart}:user:y:b`, 1, `{${env}:rampart}`);
    expect((await store.decide(req([a, b]))).allowed).toBe(true);
    const refused = await store.decide(req([a, b]));
    expect(refused.allowed).toBe(false);
    expect(refused.buckets[0]!.remaining).toBe(3);
    expect((await store.decide(req([a]))).buckets[0]!.remaining).toBe(3);
  });

  it('should take a claim with the service-tagged slot, first, also when every bucket has its own slot', async () => {
    const env = uniqueEnv();
    const store = new RedisRateLimitStore(redis, {
      clock: 'app',
      cluster: true,
      appClock: new ManualClock(),
    });
    const own = `rl:{${env}:rampart:user:u1:a}`;
    const service = `{${env}:rampart}`;
    const a = bucket(own, 2, tagOf(own));
    const g = bucket(`rl:${service}:global:-:g`, 5, service);
    const claim = (id: string) => ({ key: `rl:${service}:claim:update:${id}`, ttlMs: 60_000 });
    const told = (bs: BucketSpec[]) => bs.map(toldKey);
    // Only an own-slot bucket: the claim is its own call on the service slot, then the bucket's slot.
    expect(await store.decide({ ...req([a]), claim: claim('1') })).toMatchObject({ allowed: true });
    expect(await store.decide({ ...req([a]), claim: claim('1') })).toMatchObject({
      duplicate: true,
    });
    // Both slots: a duplicate charges neither.
    expect(await store.decide({ ...req([a, g]), claim: claim('2') })).toMatchObject({
      allowed: true,
    });
    expect(await store.decide({ ...req([a, g]), claim: claim('2') })).toMatchObject({
      duplicate: true,
    });
    const third = await store.decide({ ...req([a, g]), claim: claim('3'), told: told([a, g]) });
    expect(third).toMatchObject({ allowed: false, blocker: 0, notify: true });
    expect(third.buckets[1]!.remaining).toBe(3); // refused elsewhere: the global slot was refunded
    const again = await store.decide({ ...req([a, g]), claim: claim('4'), told: told([a, g]) });
    expect(again).toMatchObject({ allowed: false, notify: false });
    expect(await store.decide({ ...req([a, g]), claim: claim('3') })).toMatchObject({
      duplicate: true,
    });
    expect(await redis.run('pttl', (c) => c.pttl(claim('3').key))).toBeGreaterThan(0);
    expect(await redis.run('pttl', (c) => c.pttl(toldKey(a)))).toBeGreaterThan(0);
  });

  it('should give back a concurrency lease taken in one slot when another slot refuses, and release one in its slot', async () => {
    const env = uniqueEnv();
    const store = new RedisRateLimitStore(redis, {
      clock: 'app',
      cluster: true,
      appClock: new ManualClock(Date.now()),
    });
    const service = `{${env}:rampart}`;
    const lease = (id: string): BucketSpec => ({
      ...bucket(`rl:${service}:app:a:conc`, 2, service),
      kind: 'c',
      intervalUs: 60e6,
      leaseId: id,
    });
    const own = `rl:{${env}:rampart:user:u1:a}`;
    const one = bucket(own, 1, tagOf(own));
    const count = () => redis.run('zcard', (c) => c.zcard(lease('-').key));
    expect(await store.decide(req([lease('lease-aaaa'), one]))).toMatchObject({ allowed: true });
    expect(await count()).toBe(1);
    // The user slot refuses: the lease the service slot took is given back (ratelimit_refund).
    expect(await store.decide(req([lease('lease-bbbb'), one]))).toMatchObject({ allowed: false });
    expect(await count()).toBe(1);
    await store.release({ id: 'lease-aaaa', keys: [lease('lease-aaaa')] });
    expect(await count()).toBe(0);
  });

  it('should reserve per slot and refund the slots that charged when another slot refuses', async () => {
    const env = uniqueEnv();
    const clock = new ManualClock();
    let refunds = 0;
    const store = new RedisRateLimitStore(redis, {
      clock: 'app',
      cluster: true,
      appClock: clock,
      onRefund: (n) => (refunds += n),
    });
    // Find two own-slot keys on different slots (and, with 3 masters, usually different nodes).
    const keys: string[] = [];
    for (let i = 0; keys.length < 2; i++) {
      const k = `rl:{${env}:rampart:user:u${i}:a}`;
      if (keys.length === 0 || (await slot(k)) !== (await slot(keys[0]!))) keys.push(k);
    }
    const a = bucket(keys[0]!, 5, tagOf(keys[0]!));
    const b = bucket(keys[1]!, 1, tagOf(keys[1]!));
    expect((await store.decide(req([a, b]))).allowed).toBe(true);
    const tatBefore = await redis.run('get', (c) => c.get(a.key));
    const refused = await store.decide(req([a, b]));
    expect(refused.allowed).toBe(false);
    expect(refused.blocker).toBe(1);
    expect(refunds).toBe(1);
    expect(await redis.run('get', (c) => c.get(a.key))).toBe(tatBefore);
    expect(await redis.run('pttl', (c) => c.pttl(a.key))).toBeGreaterThan(0);
    expect((await store.decide(req([a]))).buckets[0]!.remaining).toBe(3);
  });

  describe('through the app (REDIS_CLUSTER_NODES)', () => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await startApp(
        {
          REDIS_CLUSTER_NODES: nodes(),
          RAMPART_ENV: uniqueEnv('rlc'),
          REDIS_COMMAND_TIMEOUT_MS: '1000',
        },
        {
          search: 'empty',
          imports: [RateLimitRoutesModule],
          config: withRateLimitPolicies({
            plain: {
              mode: 'enforce',
              failMode: 'closed',
              rules: [
                { name: 'per-ip', dimension: 'ip', capacity: 3, rate: '1/h' },
                { name: 'global', dimension: 'global', capacity: 100, rate: '1/h' },
                {
                  name: 'own-slot',
                  dimension: 'route',
                  capacity: 50,
                  rate: '1/h',
                  scope: 'subject',
                },
              ],
            },
          }),
        },
      );
    }, 60_000);
    afterAll(() => app?.close());

    it('should never let a CROSSSLOT error reach a client and refuse exactly past capacity', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${app.url}/rl-test/plain`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    });
  });
});

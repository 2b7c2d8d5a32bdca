/**
 * One table per admin store interface, run against the memory store and the
 * Redis store (a real Redis, and a real 3-master Cluster): all must behave the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminBus } from '../../src/admin/admin-bus.js';
import type { AppDefinition, AppStore } from '../../src/admin/apps/app-store.js';
import { MemoryAppStore } from '../../src/admin/apps/memory-app.store.js';
import { RedisAppStore } from '../../src/admin/apps/redis-app.store.js';
import type { AuditLog } from '../../src/admin/audit/audit-log.js';
import { MemoryAuditLog } from '../../src/admin/audit/memory-audit.log.js';
import { RedisAuditLog } from '../../src/admin/audit/redis-audit.log.js';
import { MemoryPolicyStore } from '../../src/admin/policies/memory-policy.store.js';
import type { PolicyStore } from '../../src/admin/policies/policy-store.js';
import { RedisPolicyStore } from '../../src/admin/policies/redis-policy.store.js';
import { MemoryStatsStore } from '../../src/admin/status/memory-stats.store.js';
import { RedisStatsStore } from '../../src/admin/status/redis-stats.store.js';
import type { StatsStore } from '../../src/admin/status/stats-store.js';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import { loadAppConfig } from '../../src/app.config.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';

const HISTORY = 3;
const policies = (mode: 'enforce' | 'shadow' | 'off'): Record<string, RoutePolicy> => ({
  search: { locks: { rateLimit: { mode } } },
});
const entry = (mode: 'enforce' | 'shadow' | 'off', actor = 'alice') => ({
  at: new Date().toISOString(),
  actor,
  summary: `rateLimit → ${mode}`,
  policies: policies(mode),
});
const app = (id: string, secret = 's'.repeat(40)): AppDefinition => ({
  id,
  tier: 'free',
  active: true,
  debug: false,
  secrets: [{ id: 'k1', secret }],
});

async function until(cond: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Stores {
  policies: PolicyStore;
  apps: AppStore;
  audit: AuditLog;
  stats: StatsStore;
}

const redisServices: RedisService[] = [];

let cluster: RedisClusterProcess | undefined;

async function redisStores(
  env: Record<string, string> = { REDIS_URL: redisUrl() },
): Promise<Stores> {
  const redis = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      RAMPART_ENV: uniqueEnv('adm'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      ...env,
    }),
    new MetricsService(),
  );
  await redis.onModuleInit();
  redisServices.push(redis);
  const bus = new AdminBus(redis);
  return {
    policies: new RedisPolicyStore(redis, bus, HISTORY),
    apps: new RedisAppStore(redis, bus),
    audit: new RedisAuditLog(redis, 1000),
    stats: new RedisStatsStore(redis, 60_000),
  };
}

function memoryStores(): Promise<Stores> {
  return Promise.resolve({
    policies: new MemoryPolicyStore(HISTORY),
    apps: new MemoryAppStore(),
    audit: new MemoryAuditLog(1000),
    stats: new MemoryStatsStore(),
  });
}

/** A real 3-master Redis Cluster: every admin script touches keys of one hash tag, so one slot. */
async function clusterStores(): Promise<Stores> {
  cluster = await startRedisCluster(3);
  return redisStores({
    REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
  });
}

const KINDS = [
  { kind: 'memory', make: memoryStores, skip: false },
  { kind: 'redis', make: () => redisStores(), skip: !redisUrl() },
  { kind: 'redis cluster', make: clusterStores, skip: !canStartRedis() },
];

afterAll(async () => {
  await Promise.all(redisServices.map((r) => r.onApplicationShutdown()));
  await cluster?.stop();
});

describe.each(KINDS)('admin stores ($kind)', ({ make, skip }) => {
  let s: Stores;
  beforeAll(async () => {
    if (!skip) s = await make();
  });

  describe.skipIf(skip)('PolicyStore', () => {
    it('should start empty, then number versions from 1 and make each one active', async () => {
      expect(await s.policies.activeVersion()).toBe(0);
      expect(await s.policies.get(1)).toBeUndefined();
      expect(await s.policies.commit(0, entry('enforce', 'system'))).toEqual({
        ok: true,
        version: 1,
      });
      expect(await s.policies.commit(1, entry('shadow'))).toEqual({ ok: true, version: 2 });
      expect(await s.policies.activeVersion()).toBe(2);
      expect((await s.policies.get(2))?.policies).toEqual(policies('shadow'));
      expect(await s.policies.get(1)).toMatchObject({
        version: 1,
        actor: 'system',
        policies: policies('enforce'),
      });
    });

    it('should refuse a commit made from a stale version and change nothing', async () => {
      expect(await s.policies.commit(1, entry('off'))).toEqual({ ok: false, active: 2 });
      expect(await s.policies.activeVersion()).toBe(2);
      expect(await s.policies.get(3)).toBeUndefined();
    });

    it('should list versions newest first without content, and keep only the newest historyLimit', async () => {
      await s.policies.commit(2, entry('off'));
      await s.policies.commit(3, entry('enforce', 'bob'));
      const list = await s.policies.list(10);
      expect(list.map((v) => v.version)).toEqual([4, 3, 2]);
      expect(list[0]).toEqual({
        version: 4,
        at: expect.any(String),
        actor: 'bob',
        summary: 'rateLimit → enforce',
      });
      expect(list[0]).not.toHaveProperty('policies');
      expect(await s.policies.get(1)).toBeUndefined();
      expect(await s.policies.list(1)).toHaveLength(1);
    });

    it('should tell watchers about each new version once watch() resolved', async () => {
      const seen: number[] = [];
      const stop = await s.policies.watch((v) => seen.push(v));
      try {
        const version = await s.policies.activeVersion();
        expect(await s.policies.commit(version, entry('shadow'))).toEqual({
          ok: true,
          version: version + 1,
        });
        // On a Cluster, announcements travel over the cluster bus and older ones may still
        // arrive late: listeners treat them as hints and re-read the active version.
        await until(() => seen.includes(version + 1));
        expect(seen.every((v) => v <= version + 1)).toBe(true);
      } finally {
        stop();
      }
    });
  });

  describe.skipIf(skip)('AppStore', () => {
    it('should store a new app at revision 1 and bump the apps version', async () => {
      const v0 = await s.apps.version();
      expect(await s.apps.put(0, app('acme'))).toEqual({ ok: true, rev: 1, version: v0 + 1 });
      expect(await s.apps.get('acme')).toEqual({ rev: 1, definition: app('acme') });
    });

    it('should refuse a write from a stale revision (and a second create) and change nothing', async () => {
      expect(await s.apps.put(0, app('acme', 'x'.repeat(40)))).toEqual({ ok: false, rev: 1 });
      expect(await s.apps.put(1, { ...app('acme'), active: false })).toMatchObject({
        ok: true,
        rev: 2,
      });
      expect(await s.apps.put(1, app('acme'))).toEqual({ ok: false, rev: 2 });
      expect((await s.apps.get('acme'))?.definition.active).toBe(false);
    });

    it('should return every stored app', async () => {
      await s.apps.put(0, app('beta'));
      const all = await s.apps.all();
      expect([...all.keys()].sort()).toEqual(['acme', 'beta']);
      expect(all.get('beta')?.rev).toBe(1);
      expect(await s.apps.get('nope')).toBeUndefined();
    });
  });

  describe.skipIf(skip)('AuditLog', () => {
    it('should page newest first, with a cursor to older entries', async () => {
      for (let i = 0; i < 5; i++)
        await s.audit.append({
          at: new Date().toISOString(),
          actor: 'alice',
          action: 'policy.lock_mode',
          target: `t${i}`,
          summary: `#${i}`,
          changes: [],
        });
      const first = await s.audit.page(2);
      expect(first.entries.map((e) => e.target)).toEqual(['t4', 't3']);
      expect(first.next).toBe(first.entries[1]!.id);
      const second = await s.audit.page(2, first.next);
      expect(second.entries.map((e) => e.target)).toEqual(['t2', 't1']);
      const last = await s.audit.page(2, second.next);
      expect(last.entries.map((e) => e.target)).toEqual(['t0']);
      expect(last.next).toBeUndefined();
      expect(first.entries[0]).toMatchObject({
        actor: 'alice',
        action: 'policy.lock_mode',
        summary: '#4',
        changes: [],
      });
    });
  });

  describe.skipIf(skip)('StatsStore', () => {
    it('should return each instance’s latest snapshot and drop the ones older than maxAge', async () => {
      const counts = {
        rateLimit: {
          search: { allowed: 1, rejected: 2, shadow_rejected: 0, short_circuited: 0, skipped: 0 },
        },
      };
      await s.stats.publish({ instance: 'a', at: Date.now(), counts });
      await s.stats.publish({
        instance: 'a',
        at: Date.now(),
        counts: { ...counts, signature: {} },
      });
      await s.stats.publish({ instance: 'old', at: Date.now() - 60_000, counts });
      const got = await s.stats.collect(10_000);
      expect(got.map((x) => x.instance)).toEqual(['a']);
      expect(got[0]!.counts).toHaveProperty('signature');
      expect((await s.stats.collect(120_000)).map((x) => x.instance)).toEqual(['a']);
    });
  });
});

describe('MemoryAuditLog', () => {
  it('should keep only the newest maxLen entries', async () => {
    const log = new MemoryAuditLog(3, () => 1_000);
    for (let i = 0; i < 5; i++)
      await log.append({
        at: '',
        actor: 'a',
        action: 'x',
        target: `t${i}`,
        summary: '',
        changes: [],
      });
    const page = await log.page(10);
    expect(page.entries.map((e) => e.target)).toEqual(['t4', 't3', 't2']);
    expect(page.entries[0]!.id).toBe('1000-4');
  });
});

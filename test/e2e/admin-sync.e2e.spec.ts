/**
 * Two (and three) app instances on one Redis: every admin change made on one
 * instance applies on the others within a second (pub/sub), and the
 * periodic version check catches a lost announcement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import {
  ADMIN_TOKEN,
  AdminClient,
  AdminTestAppRegistryModule,
  READY_DETAIL,
  eventually,
} from '../support/admin-client.js';
import { canStartRedis, redisUrl, suiteRedisClient, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import { TestLocksModule } from '../support/test-locks.js';

/** What the issue asks: a change reaches every instance within one second. */
const WITHIN_MS = 1_000;

const withTestPolicy = (c: RampartConfig): RampartConfig => ({
  ...c,
  policies: {
    ...c.policies,
    test: {
      locks: {
        signature: { mode: 'enforce' },
        rateLimit: { mode: 'enforce' },
        cacheShield: { mode: 'enforce' },
        circuitBreaker: { mode: 'enforce' },
      },
    },
  },
  // A short safety-net check: one test writes a version without its announcement.
  sections: { ...c.sections, admin: { statsIntervalMs: 200, syncIntervalMs: 1_000 } },
});

async function probe(app: RunningApp, reject: string): Promise<number> {
  return (await fetch(`${app.url}/test/protected`, { headers: { 'x-test-reject': reject } }))
    .status;
}

describe.skipIf(!redisUrl()).each(ADAPTERS)(
  'admin API across instances on one Redis (%s)',
  (adapter) => {
    const env = uniqueEnv('adm');
    const start = (): Promise<RunningApp> =>
      startApp(
        { HTTP_ADAPTER: adapter, REDIS_URL: redisUrl(), RAMPART_ENV: env, ADMIN_TOKEN },
        {
          search: 'empty',
          locks: [TestLocksModule],
          imports: [AdminTestAppRegistryModule],
          config: withTestPolicy,
        },
      );
    const started: RunningApp[] = [];
    let a: AdminClient;
    let b: AdminClient;

    beforeAll(async () => {
      started.push(await start(), await start());
      a = new AdminClient(started[0]!);
      b = a.withToken(ADMIN_TOKEN);
      (b as { app: RunningApp }).app = started[1]!;
    });
    afterAll(async () => {
      await Promise.all(started.map((s) => s.close()));
    });

    it('should apply a change made on one instance on the other within a second', async () => {
      expect(await probe(b.app, 'signature')).toBe(401);
      const r = await a.call<{ version: number }>('PATCH', '/admin/policies/test/locks/signature', {
        mode: 'off',
      });
      expect(r.status).toBe(200);
      await eventually(
        () => b.effective('test', 'signature'),
        (m) => m === 'off',
        WITHIN_MS,
      );
      expect(await b.version()).toBe(r.body.version);
      expect(await probe(b.app, 'signature')).toBe(200);
    });

    it('should roll back on the other instance and restore the earlier behaviour everywhere', async () => {
      const versions = await b.get<{ versions: { version: number; summary: string }[] }>(
        '/admin/policies/versions',
      );
      const beforeOff = versions.body.versions.find((v) =>
        v.summary.startsWith('policy set in force'),
      )!.version;
      const rb = await b.call<{ version: number }>('POST', '/admin/policies/rollback', {
        version: beforeOff,
      });
      expect(rb.status).toBe(200);
      await eventually(
        () => a.effective('test', 'signature'),
        (m) => m === 'enforce',
        WITHIN_MS,
      );
      expect(await probe(a.app, 'signature')).toBe(401);
      expect(await probe(b.app, 'signature')).toBe(401);
      expect(await a.version()).toBe(rb.body.version);
    });

    it('should revert a time-boxed override on every instance by itself', async () => {
      const until = new Date(Date.now() + 1_500).toISOString();
      await a.call('PATCH', '/admin/policies/test/locks/rateLimit', { mode: 'shadow', until });
      await eventually(
        () => b.effective('test', 'rateLimit'),
        (m) => m === 'shadow',
        WITHIN_MS,
      );
      expect(await probe(b.app, 'rateLimit')).toBe(200);
      await eventually(
        () => b.effective('test', 'rateLimit'),
        (m) => m === 'enforce',
        5_000,
        100,
      );
      expect(await a.effective('test', 'rateLimit')).toBe('enforce');
      expect(await probe(b.app, 'rateLimit')).toBe(429);
    });

    it('should keep both of two concurrent changes made on different instances', async () => {
      const [x, y] = await Promise.all([
        a.call('PATCH', '/admin/policies/test/locks/cacheShield', { mode: 'shadow' }),
        b.call('PATCH', '/admin/policies/test/locks/circuitBreaker', { mode: 'shadow' }),
      ]);
      expect([x.status, y.status]).toEqual([200, 200]);
      for (const c of [a, b]) {
        await eventually(
          async () => [
            await c.effective('test', 'cacheShield'),
            await c.effective('test', 'circuitBreaker'),
          ],
          (m) => m[0] === 'shadow' && m[1] === 'shadow',
          WITHIN_MS,
        );
      }
      expect(await a.version()).toBe(await b.version());
    });

    it('should change nothing anywhere on an unauthenticated, malformed or invalid call', async () => {
      const active = async () =>
        (await b.get<{ active: number }>('/admin/policies/versions')).body.active;
      const before = await active();
      const calls = [
        await a
          .withToken(null)
          .call('PATCH', '/admin/policies/test/locks/signature', { mode: 'off' }),
        await a
          .withToken('not-the-token-0123456789')
          .call('PATCH', '/admin/policies/test/locks/signature', { mode: 'off' }),
        await a.call('PATCH', '/admin/policies/test/locks/signature', '{"mode":', {
          'content-type': 'application/json',
        }),
        await a.call('PATCH', '/admin/policies/test/locks/signature', {
          mode: 'off',
          sneaky: true,
        }),
        await a.call('PUT', '/admin/policies/test', { locks: { signature: { mode: 'never' } } }),
      ];
      expect(calls.map((c) => c.status)).toEqual([401, 401, 400, 400, 400]);
      expect(await active()).toBe(before);
      expect(await a.version()).toBe(before);
      expect(await probe(b.app, 'signature')).toBe(401);
    });

    it('should load the active version in an instance started after the changes', async () => {
      await a.call('PATCH', '/admin/policies/test/locks/signature', { mode: 'shadow' });
      const version = await a.version();
      const c = await start();
      started.push(c);
      const cc = a.withToken(ADMIN_TOKEN);
      (cc as { app: RunningApp }).app = c;
      expect(await cc.version()).toBe(version);
      expect(await cc.effective('test', 'signature')).toBe('shadow');
      expect(await probe(c, 'signature')).toBe(200);
    });

    it('should apply a version whose announcement was lost, through the periodic check', async () => {
      const redis = suiteRedisClient();
      try {
        const prefix = `cfg:{${env}:rampart}:policies`;
        const active = Number(await redis.get(`${prefix}:active`));
        const current = JSON.parse((await redis.get(`${prefix}:v:${active}`))!) as {
          policies: Record<string, RoutePolicy>;
        };
        current.policies.test!.locks.cacheShield = { mode: 'off' };
        const meta = {
          version: active + 1,
          at: new Date().toISOString(),
          actor: 'test',
          summary: 'written without announcement',
        };
        // The same writes as lua/admin_policy_commit.lua, minus the PUBLISH.
        await redis
          .multi()
          .set(`${prefix}:v:${active + 1}`, JSON.stringify({ ...meta, policies: current.policies }))
          .hset(`${prefix}:meta`, active + 1, JSON.stringify(meta))
          .incr(`${prefix}:active`)
          .exec();
        for (const c of [a, b])
          await eventually(
            () => c.effective('test', 'cacheShield'),
            (m) => m === 'off',
            5_000,
            50,
          );
        expect(await b.version()).toBe(active + 1);
      } finally {
        redis.disconnect();
      }
    });

    it('should make an app created on one instance known to the others (and to one started later), showing its secret only once', async () => {
      const created = await a.call<{ secret: { value: string } }>('POST', '/admin/apps', {
        id: 'shared-app',
        tier: 'free',
      });
      expect(created.status).toBe(201);
      const secret = created.body.secret.value;
      await eventually(
        () => b.get<{ apps: { id: string }[] }>('/admin/apps'),
        (r) => r.body.apps.some((x) => x.id === 'shared-app'),
        WITHIN_MS,
      );
      const rotated = await b.call<{ secret: { id: string; value: string } }>(
        'POST',
        '/admin/apps/shared-app/secrets',
      );
      expect(rotated.body.secret.id).toBe('k2');
      await eventually(
        () => a.get<{ apps: { id: string; secrets: { id: string }[] }[] }>('/admin/apps'),
        (r) => r.body.apps.find((x) => x.id === 'shared-app')?.secrets.length === 2,
        WITHIN_MS,
      );
      await a.call('POST', '/admin/apps/shared-app/deactivate');
      await eventually(
        () => b.get<{ apps: { id: string; active: boolean }[] }>('/admin/apps'),
        (r) => r.body.apps.find((x) => x.id === 'shared-app')?.active === false,
        WITHIN_MS,
      );

      const late = await start();
      started.push(late);
      const lateAdmin = a.withToken(ADMIN_TOKEN);
      (lateAdmin as { app: RunningApp }).app = late;
      const known = await lateAdmin.get<{
        apps: { id: string; active: boolean; secrets: unknown[] }[];
      }>('/admin/apps');
      expect(known.body.apps.find((x) => x.id === 'shared-app')).toMatchObject({
        active: false,
        secrets: [{ id: 'k1' }, { id: 'k2' }],
      });

      const audit = await b.get<{ entries: { actor: string; action: string }[] }>(
        '/admin/audit?limit=200',
      );
      expect(audit.body.entries.slice(0, 3).map((e) => [e.actor, e.action])).toEqual([
        ['env', 'app.deactivate'],
        ['env', 'app.rotate_secret'],
        ['env', 'app.create'],
      ]);
      for (const c of [a, b]) {
        await c.get('/admin/config');
        await c.get('/admin/status');
      }
      const oneTime = new Set([created.text, rotated.text]);
      for (const body of a.bodies)
        if (!oneTime.has(body))
          for (const s of [secret, rotated.body.secret.value]) expect(body).not.toContain(s);
    });

    it('should report the running and the active policy version in /health/ready', async () => {
      const r = await a.call<{ version: number }>(
        'PATCH',
        '/admin/policies/test/locks/cacheShield',
        { mode: 'off' },
      );
      await eventually(
        () => b.version(),
        (v) => v === r.body.version,
        WITHIN_MS,
      );
      type Health = {
        details?: Record<
          string,
          { status: string; running: number; active: number; store: string }
        >;
      };
      const health = await eventually(
        async () =>
          (await (await fetch(`${b.app.url}/health/ready`, READY_DETAIL)).json()) as Health,
        (h) => h.details?.['admin-policies']?.status === 'up',
        5_000,
        100,
      );
      const check = health.details!['admin-policies'];
      expect(check).toMatchObject({ status: 'up', store: 'redis' });
      expect([check!.running, check!.active]).toEqual([r.body.version, r.body.version]);
    });

    it('should sum lock counters over every live instance', async () => {
      for (let i = 0; i < 3; i++) await probe(a.app, 'none');
      for (let i = 0; i < 2; i++) await probe(b.app, 'none');
      const status = await eventually(
        () =>
          a.get<{
            aggregated: boolean;
            instances: unknown[];
            byLock: Record<string, Record<string, { allowed: number }>>;
          }>('/admin/status'),
        (r) =>
          r.body.instances.length === started.length &&
          (r.body.byLock.cacheShield?.test?.allowed ?? 0) >= 0,
        5_000,
        100,
      );
      expect(status.body.aggregated).toBe(true);
      const own = await a.get<{
        instances: { self: boolean }[];
        byLock: Record<string, Record<string, { allowed: number; shadow_rejected: number }>>;
      }>('/admin/status');
      expect(own.body.instances.filter((i) => i.self)).toHaveLength(1);
      // The test signature lock counts every request of every instance that enforced or shadowed it.
      await eventually(
        () =>
          a.get<{
            byLock: Record<string, Record<string, { allowed: number; shadow_rejected: number }>>;
          }>('/admin/status'),
        (r) => {
          const s = r.body.byLock.signature?.test;
          return s !== undefined && s.allowed + s.shadow_rejected >= 5;
        },
        5_000,
        100,
      );
    });
  },
);

describe.skipIf(!canStartRedis())('admin API while Redis is down (private redis-server)', () => {
  let server: RedisProcess;
  let app: RunningApp;
  let admin: AdminClient;

  beforeAll(async () => {
    server = await startRedis();
    app = await startApp(
      { REDIS_URL: server.url, RAMPART_ENV: uniqueEnv('adm'), ADMIN_TOKEN },
      { search: 'empty', locks: [TestLocksModule], config: withTestPolicy },
    );
    admin = new AdminClient(app);
  });
  afterAll(async () => {
    await app?.close();
    await server?.stop();
  });

  it('should answer 503 admin_store_unavailable and change nothing, then work again when Redis is back', async () => {
    await admin.call('PATCH', '/admin/policies/test/locks/cacheShield', { mode: 'shadow' });
    const before = await admin.version();
    await server.kill();
    const r = await admin.call('PATCH', '/admin/policies/test/locks/signature', { mode: 'off' });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ error: 'admin_store_unavailable' });
    expect(r.headers.get('retry-after')).toBe('1');
    expect(await admin.version()).toBe(before);
    expect(await probe(app, 'signature')).toBe(401);

    await server.start();
    // A restarted, empty Redis: the next change stores the running set as version 1 and itself as version 2.
    const ok = await eventually(
      () =>
        admin.call<{ version: number }>('PATCH', '/admin/policies/test/locks/signature', {
          mode: 'off',
        }),
      (x) => x.status === 200,
      10_000,
      100,
    );
    expect(ok.body.version).toBe(2);
    expect(await probe(app, 'signature')).toBe(200);
    const v1 = await admin.get<{ policies: Record<string, RoutePolicy> }>(
      '/admin/policies/versions/1',
    );
    expect(v1.body.policies.test!.locks.cacheShield!.mode).toBe('shadow');
  });
});

/**
 * The service-wide degrade order over HTTP (docs/quotas.md#degrade-order):
 * pressure on search's global bucket raises the one load level; at soft
 * inference (rank 2) gets half its quota while search (rank 1) is only
 * answered from caches and admin (critical) is untouched; at hard every
 * non-critical route is refused 503 load_shed with Retry-After, admin still
 * answers. On Redis, two instances (one per adapter) agree on the level.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { createSignedFetch } from '../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient, READY_DETAIL, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { testApps } from '../support/signature-routes.js';

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/** Search's global bucket small (20, 6/min) so a test can fill it; soft from half full, hard from 90 %. */
function pressure(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  const rl = policies.search!.locks.rateLimit as unknown as {
    rules: { name: string; capacity: number; rate: string }[];
  };
  rl.rules = rl.rules.map((r) => (r.name === 'global' ? { ...r, capacity: 20, rate: '6/min' } : r));
  return {
    ...c,
    policies,
    sections: {
      ...c.sections,
      rateLimit: { load: { soft: 0.5, hard: 0.9, hold: '3s', poll: '50ms' } },
    },
  };
}

/** The limit (q=…) of `rule` in a response's RateLimit-Policy header. */
const quota = (h: Headers, rule: string): number =>
  Number(
    new RegExp(`"${rule.replace('.', '\\.')}";q=(\\d+)`).exec(h.get('ratelimit-policy') ?? '')?.[1],
  );

/** The load level as /health/ready shows it (not rate limited, unlike the admin API). */
async function level(app: RunningApp): Promise<string | undefined> {
  const body = (await (await fetch(`${app.url}/health/ready`, READY_DETAIL)).json()) as {
    details?: { load?: { level?: string; message?: string } };
  };
  const l = body.details?.load;
  return l?.level ?? (l?.message?.startsWith('load level hard') ? 'hard' : undefined);
}

async function searches(app: RunningApp, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await (await fetch(`${app.url}/v1/search?q=rome`)).arrayBuffer();
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'degrade order over HTTP ($adapter, $store store)',
  ({ adapter, env }) => {
    let app: RunningApp | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('should reduce inference first under pressure on search, shed at hard, and leave admin untouched', async () => {
      const apps = testApps();
      app = await startApp(
        {
          HTTP_ADAPTER: adapter,
          ADMIN_TOKEN,
          APPS_FILE: apps.file,
          RAMPART_ENV: uniqueEnv('qld'),
          ...env(),
        },
        { config: pressure },
      );
      await app.app.get(BloomService).ready; // armed: /health/ready is up, whatever the load level
      const signed = createSignedFetch({ appId: apps.debug.appId, secret: apps.debug.secret });
      const infer = () =>
        signed(`${app!.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'rampart-local',
            messages: [{ role: 'user', content: 'hi' }],
            max_tokens: 8,
          }),
        });
      const admin = new AdminClient(app);
      const before = await infer();
      expect(before.status).toBe(200);
      expect(quota(before.headers, 'inference.per-app')).toBe(120);

      await searches(app, 12); // 12 of 20: soft
      await eventually(
        () => level(app!),
        (l) => l === 'soft',
        3_000,
      );
      const soft = await infer();
      expect(soft.status).toBe(200);
      expect(quota(soft.headers, 'inference.per-app')).toBe(60);
      const search = await fetch(`${app.url}/v1/search?q=rome`);
      expect(search.status).toBe(200);
      // Search (rank 1) keeps its quota and is answered from the shield's cache (`state.degraded`).
      expect(search.headers.get('rampart-shield')).toMatch(/^cache-hit/);
      const status = await admin.get<{ load: { policies: { policy: string; action: string }[] } }>(
        '/admin/status',
      );
      expect(status.status).toBe(200);
      const actions = Object.fromEntries(
        status.body.load.policies.map((p) => [p.policy, p.action]),
      );
      expect(actions).toMatchObject({ inference: 'reduce', search: 'cache', admin: 'exempt' });
      expect(quota(status.headers, 'admin.per-ip')).toBe(60);
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toMatch(/rampart_load_level 1/);
      expect(metrics).toMatch(/rampart_load_policy_action\{policy="inference",action="reduce"\} 1/);

      await searches(app, 8); // 20 of 20: hard (held 3 s)
      await eventually(
        () => level(app!),
        (l) => l === 'hard',
        3_000,
      );
      const shed = await fetch(`${app.url}/v1/search?q=rome`);
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe('5');
      expect(shed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await shed.json()) as { error: string }).error).toBe('load_shed');
      expect((await infer()).status).toBe(503);
      const adminAtHard = await admin.get('/admin/status');
      expect(adminAtHard.status).toBe(200);
      expect(quota(adminAtHard.headers, 'admin.per-ip')).toBe(60);
      const ready = await fetch(`${app.url}/health/ready`, READY_DETAIL);
      expect(ready.status).toBe(200);
      expect(JSON.stringify(await ready.json())).toContain('load level hard');
    });
  },
);

describe.skipIf(!redisUrl())('load level shared through Redis', () => {
  let apps: RunningApp[] = [];
  afterEach(async () => {
    for (const a of apps) await a.close();
    apps = [];
  });

  it('should have two instances (express and fastify) agree on the level within 1 s', async () => {
    const env = {
      ADMIN_TOKEN,
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('qls'),
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    };
    for (const adapter of ADAPTERS)
      apps.push(await startApp({ ...env, HTTP_ADAPTER: adapter }, { config: pressure }));
    const [a, b] = apps as [RunningApp, RunningApp];
    expect(await level(a)).toBe('normal');
    expect(await level(b)).toBe('normal');
    await searches(a, 12); // the pressure reaches instance a only
    const seen = async (app: RunningApp): Promise<number> => {
      await eventually(
        () => level(app),
        (l) => l === 'soft',
        5_000,
        10,
      );
      return Date.now();
    };
    const [ta, tb] = await Promise.all([seen(a), seen(b)]);
    expect(Math.abs(ta - tb)).toBeLessThan(1_000);
  });
});

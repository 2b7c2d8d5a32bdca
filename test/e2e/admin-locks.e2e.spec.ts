/**
 * The admin API against the real locks (whatever LOCK_MODULES installs):
 * the rate-limit lock throttles token guessing on /admin, an app created
 * through the admin API signs requests on another instance, and a lock's
 * own validation judges option edits. Each part skips, saying why, while
 * its lock is not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockChain } from '../../src/chain/lock-chain.service.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { signedFetch } from '../../src/sdk/index.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const WITHIN_MS = 1_000;

/**
 * These tests exercise the signature and rate-limit locks only: the shield
 * and the breaker are switched off in every policy (valid whether or not
 * their modules are installed yet).
 */
function onlyIdentityAndRate(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  for (const p of Object.values(policies)) {
    p.locks.cacheShield = { mode: 'off' };
    p.locks.circuitBreaker = { mode: 'off' };
  }
  // Fixed quotas: these tests count answers against a rule's capacity, and a risk score
  // (a new subject, the earlier tests' refusals) would scale it (docs/quotas.md).
  const rateLimit = { ...(c.sections.rateLimit as object | undefined), risk: { enabled: false } };
  return { ...c, policies, sections: { ...c.sections, rateLimit } };
}

/** A tight per-IP limit on /admin: 5 requests, then one a minute. */
const strictAdminLimit = (c: RampartConfig): RampartConfig => {
  const out = onlyIdentityAndRate(c);
  out.policies.admin!.locks.rateLimit = {
    mode: 'enforce',
    failMode: 'open',
    rules: [{ name: 'per-ip', dimension: 'ip', capacity: 5, rate: '1/min' }],
  };
  return out;
};

describe.each(ADAPTERS)('admin API behind the real rate-limit lock (%s)', (adapter) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter, ADMIN_TOKEN }, { config: strictAdminLimit });
  });
  afterAll(() => app?.close());

  it('should answer a flood of bad tokens with 429 before the token is even checked', (ctx) => {
    if (!app.app.get(LockChain).lock('rateLimit'))
      ctx.skip('the rate-limit lock is not installed (LOCK_MODULES): nothing throttles /admin yet');
    return (async () => {
      const guesses = new AdminClient(app, 'guess-0000000000000000');
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await guesses.get('/admin/config')).status);
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(statuses.slice(5)).toEqual(Array(7).fill(429));
      const good = await new AdminClient(app).get('/admin/config');
      expect(good.status).toBe(429);
      expect(good.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(
        (await fetch(`${app.url}/metrics`).then((r) => r.text())).match(
          /rampart_admin_auth_failures_total (\d+)/,
        )?.[1],
      ).toBe('5');
    })();
  });
});

describe.skipIf(!redisUrl())('admin API with the real locks on two instances (one Redis)', () => {
  const env = uniqueEnv('adl');
  let a: RunningApp;
  let b: RunningApp;
  let adminA: AdminClient;
  let adminB: AdminClient;
  let installed: string[] = [];

  beforeAll(async () => {
    // A generous command timeout: this machine is shared, and a slow nonce claim (503) would hide what is tested here.
    const start = () =>
      startApp(
        { REDIS_URL: redisUrl(), RAMPART_ENV: env, ADMIN_TOKEN, REDIS_COMMAND_TIMEOUT_MS: '1000' },
        { config: onlyIdentityAndRate },
      );
    [a, b] = [await start(), await start()];
    adminA = new AdminClient(a);
    adminB = new AdminClient(b);
    installed = a.app.get(LockChain).installed();
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const whoami = (app: RunningApp, appId: string, secret: string): Promise<Response> =>
    signedFetch({ appId, secret }, `${app.url}/v1/whoami`);

  it('should let an app created on one instance sign requests on the other, until it is deactivated', async (ctx) => {
    if (!installed.includes('signature'))
      ctx.skip('the signature lock is not installed (LOCK_MODULES)');
    const created = await adminA.call<{ secret: { value: string } }>('POST', '/admin/apps', {
      id: 'live-app',
      tier: 'pro',
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret.value;
    const ok = await eventually(
      () => whoami(b, 'live-app', secret),
      (r) => r.status === 200,
      WITHIN_MS,
    );
    expect(await ok.json()).toEqual({ app: 'live-app', tier: 'pro' });

    await adminA.call('POST', '/admin/apps/live-app/deactivate');
    const refused = await eventually(
      () => whoami(b, 'live-app', secret),
      (r) => r.status === 401,
      WITHIN_MS,
    );
    expect(((await refused.json()) as { error: string }).error).toBe('unknown_app');

    await adminB.call('POST', '/admin/apps/live-app/activate');
    const rotated = await adminB.call<{ secret: { value: string } }>(
      'POST',
      '/admin/apps/live-app/secrets',
    );
    await eventually(
      () => whoami(a, 'live-app', rotated.body.secret.value),
      (r) => r.status === 200,
      WITHIN_MS,
    );
    await adminB.call('POST', '/admin/apps/live-app/secrets/k1/retire');
    await eventually(
      () => whoami(a, 'live-app', secret),
      (r) => r.status === 401,
      WITHIN_MS,
    );
    expect((await whoami(a, 'live-app', rotated.body.secret.value)).status).toBe(200);

    for (const body of [...adminA.bodies, ...adminB.bodies]) {
      if (body === created.text || body === rotated.text) continue;
      expect(body).not.toContain(secret);
      expect(body).not.toContain(rotated.body.secret.value);
    }
  });

  it('should let the rate-limit lock judge an option edit (400 naming every problem), and apply a valid one everywhere', async (ctx) => {
    if (!installed.includes('rateLimit'))
      ctx.skip('the rate-limit lock is not installed (LOCK_MODULES)');
    const before = await adminA.version();
    const bad = await adminA.call<{ problems: string[] }>(
      'PATCH',
      '/admin/policies/whoami/locks/rateLimit/options',
      {
        options: { rules: [{ name: 'Bad Name', dimension: 'planet', capacity: -1, rate: 'fast' }] },
      },
    );
    expect(bad.status).toBe(400);
    for (const field of ['name', 'dimension', 'capacity', 'rate'])
      expect(bad.body.problems.join('\n')).toMatch(
        new RegExp(`policies\\.whoami\\.locks\\.rateLimit\\.rules\\[0\\]\\.${field}`),
      );
    expect(await adminA.version()).toBe(before);

    const rules = {
      options: {
        failMode: 'open',
        rules: [{ name: 'tiny', dimension: 'ip', capacity: 2, rate: '1/min' }],
      },
    };
    expect(
      (await adminA.call('PATCH', '/admin/policies/whoami/locks/rateLimit/options', rules)).status,
    ).toBe(200);
    expect(
      (await adminA.call('PATCH', '/admin/policies/whoami/locks/rateLimit', { mode: 'enforce' }))
        .status,
    ).toBe(200);
    await eventually(
      () => adminB.effective('whoami', 'rateLimit'),
      (m) => m === 'enforce',
      WITHIN_MS,
    );
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${b.url}/v1/whoami`)).status);
    expect(statuses).toEqual([200, 200, 429]);

    const until = new Date(Date.now() + 60_000).toISOString();
    await adminB.call('PATCH', '/admin/policies/whoami/locks/rateLimit', { mode: 'off', until });
    await eventually(
      () => fetch(`${a.url}/v1/whoami`),
      (r) => r.status === 200,
      WITHIN_MS,
    );
  });

  it('should judge a tokens rule edit like any rule: its window and the slice token counter checked, a valid one taken', async (ctx) => {
    if (!installed.includes('rateLimit'))
      ctx.skip('the rate-limit lock is not installed (LOCK_MODULES)');
    const before = await adminA.version();
    const path = '/admin/policies/inference/locks/rateLimit/options';
    const tokensRule = { name: 'app-tok', dimension: 'app', algorithm: 'tokens', capacity: 1000 };
    const bad = await adminA.call<{ problems: string[] }>('PATCH', path, {
      options: { tokens: 'words', rules: [{ ...tokensRule, window: '1500ms', rate: '1/s' }] },
    });
    expect(bad.status).toBe(400);
    const problems = bad.body.problems.join('\n');
    for (const field of ['rules\\[0\\]\\.window', 'rules\\[0\\]\\.rate', 'tokens'])
      expect(problems).toMatch(new RegExp(`policies\\.inference\\.locks\\.rateLimit\\.${field}`));
    expect(await adminA.version()).toBe(before);
    const good = await adminA.call<{ problems?: string[] }>('PATCH', path, {
      options: {
        tokens: 'inference',
        rules: [
          { ...tokensRule, window: '1m', count: 'prompt' },
          { name: 'global', dimension: 'global', capacity: 1000, rate: '200/s' },
        ],
      },
    });
    expect(good.body.problems).toBeUndefined();
    expect(good.status).toBe(200);
  });

  it('should force a breaker open on one instance and have the other refuse at once, then release it', async (ctx) => {
    if (!installed.includes('circuitBreaker'))
      ctx.skip('the circuit-breaker lock is not installed (LOCK_MODULES)');
    const put = await adminA.call('PATCH', '/admin/policies/whoami/locks/circuitBreaker/options', {
      options: { backend: 'whoami-probe', stale: false },
    });
    expect(put.status).toBe(200);
    expect(
      (
        await adminA.call('PATCH', '/admin/policies/whoami/locks/circuitBreaker', {
          mode: 'enforce',
        })
      ).status,
    ).toBe(200);
    await eventually(
      () => fetch(`${b.url}/v1/whoami`),
      (r) => r.status === 200,
      WITHIN_MS,
    );

    const forced = await adminA.call('PUT', '/admin/breakers/whoami/force', { state: 'open' });
    expect(forced.status).toBe(200);
    const refused = await eventually(
      () => fetch(`${b.url}/v1/whoami`),
      (r) => r.status === 503,
      WITHIN_MS,
    );
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const breakers = await adminB.get<{ breakers: { name: string; forced?: string }[] }>(
      '/admin/breakers',
    );
    expect(breakers.body.breakers.find((x) => x.name === 'whoami-probe')).toMatchObject({
      forced: 'open',
    });

    expect((await adminB.call('DELETE', '/admin/breakers/whoami/force')).status).toBe(200);
    await eventually(
      () => fetch(`${a.url}/v1/whoami`),
      (r) => r.status === 200,
      WITHIN_MS,
    );
    const audit = await adminA.get<{ entries: { action: string }[] }>('/admin/audit?limit=2');
    expect(audit.body.entries.map((e) => e.action)).toEqual(['breaker.unforce', 'breaker.force']);
  });

  it('should show the cache shield’s Bloom filters through its admin port', async (ctx) => {
    if (!installed.includes('cacheShield'))
      ctx.skip('the cache-shield lock is not installed (LOCK_MODULES)');
    const r = await adminA.get<{ filters: { name: string; building: boolean }[] }>('/admin/bloom');
    expect(r.status).toBe(200);
    expect(r.body.filters.length).toBeGreaterThan(0);
    for (const f of r.body.filters) expect(typeof f.building).toBe('boolean');
  });
});

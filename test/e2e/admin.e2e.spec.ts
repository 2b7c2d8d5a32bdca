/**
 * The admin API on one instance without Redis (memory stores), on both
 * adapters, with the test locks: auth, validation, lock modes, overrides,
 * rollback, apps, ports not installed, audit, status.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import {
  ADMIN_TOKEN,
  AdminClient,
  AdminTestAppRegistryModule,
  eventually,
} from '../support/admin-client.js';
import { AdminTestPortsModule } from '../support/admin-test-ports.js';
import { TestLocksModule } from '../support/test-locks.js';

const FILE_TOKEN = 'alice-file-token-0123456789';
const allEnforced = (): RoutePolicy => ({
  locks: {
    signature: { mode: 'enforce' },
    rateLimit: { mode: 'enforce' },
    cacheShield: { mode: 'enforce' },
    circuitBreaker: { mode: 'enforce' },
  },
});

function tokensFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'rampart-admin-')), 'admin-tokens.yaml');
  writeFileSync(
    file,
    `- id: alice\n  sha256: ${createHash('sha256').update(FILE_TOKEN).digest('hex')}\n`,
  );
  return file;
}

/** GET /test/protected asking the named test lock to reject: its status tells whether that lock enforces. */
async function probe(app: RunningApp, reject: string): Promise<number> {
  return (await fetch(`${app.url}/test/protected`, { headers: { 'x-test-reject': reject } }))
    .status;
}

describe.each(ADAPTERS)('admin API, one instance, memory stores (%s)', (adapter) => {
  let app: RunningApp;
  let admin: AdminClient;

  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, ADMIN_TOKEN, ADMIN_TOKENS_FILE: tokensFile() },
      {
        locks: [TestLocksModule],
        imports: [AdminTestAppRegistryModule],
        config: (c) => ({
          ...c,
          policies: {
            ...c.policies,
            test: allEnforced(),
            admin: {
              ...c.policies.admin!,
              locks: { ...c.policies.admin!.locks, rateLimit: { mode: 'enforce' } },
            },
          },
        }),
      },
    );
    admin = new AdminClient(app);
  });
  afterAll(() => app?.close());

  it('should refuse a missing or wrong token with 401 problem+json and a Bearer challenge, changing nothing', async () => {
    const before = await admin.version();
    for (const token of [null, 'wrong-token-0123456789', `${ADMIN_TOKEN}x`]) {
      const r = await admin
        .withToken(token)
        .call('PATCH', '/admin/policies/test/locks/signature', { mode: 'off' });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="rampart-admin"');
      expect(r.body).toMatchObject({ error: 'admin_unauthorized', status: 401 });
    }
    expect((await admin.withToken(null).get('/admin/config')).status).toBe(401);
    expect(await admin.version()).toBe(before);
    expect(await probe(app, 'signature')).toBe(401);
  });

  it('should run the rate-limit stage before the token check (a throttled caller never reaches auth)', async () => {
    const r = await admin
      .withToken('wrong-token-0123456789')
      .call('GET', '/admin/config', undefined, { 'x-test-reject': 'rateLimit' });
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('test_rateLimit');
  });

  it('should accept a token from ADMIN_TOKENS_FILE and record its id as the actor', async () => {
    const alice = admin.withToken(FILE_TOKEN);
    const r = await alice.call('PATCH', '/admin/policies/test/locks/cacheShield', {
      mode: 'shadow',
    });
    expect(r.status).toBe(200);
    const audit = await admin.get<{ entries: { actor: string; target: string }[] }>(
      '/admin/audit?limit=1',
    );
    expect(audit.body.entries[0]).toMatchObject({ actor: 'alice', target: 'test/cacheShield' });
  });

  it('should show the running configuration with secrets masked, the installed locks and the policy version', async () => {
    const r = await admin.get<{
      config: Record<string, unknown>;
      installedLocks: string[];
      store: string;
      policySet: { version: number };
    }>('/admin/config');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(ADMIN_TOKEN);
    expect(r.text).not.toContain(createHash('sha256').update(FILE_TOKEN).digest('hex'));
    expect(r.body.config.adminToken).toBe('***');
    expect(r.body.installedLocks).toEqual([
      'signature',
      'rateLimit',
      'cacheShield',
      'circuitBreaker',
    ]);
    expect(r.body.store).toBe('memory');
    expect(r.body.policySet.version).toBeGreaterThanOrEqual(1);
  });

  it('should turn a lock off and on again at run time, as new versions', async () => {
    const v0 = await admin.version();
    const off = await admin.call<{ version: number; changed: boolean }>(
      'PATCH',
      '/admin/policies/test/locks/signature',
      { mode: 'off' },
    );
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ changed: true, version: v0 + 1 });
    expect(await probe(app, 'signature')).toBe(200);
    expect(await admin.effective('test', 'signature')).toBe('off');

    const again = await admin.call<{ version: number; changed: boolean }>(
      'PATCH',
      '/admin/policies/test/locks/signature',
      { mode: 'off' },
    );
    expect(again.body).toMatchObject({ changed: false, version: v0 + 1 });

    await admin.call('PATCH', '/admin/policies/test/locks/signature', { mode: 'enforce' });
    expect(await probe(app, 'signature')).toBe(401);
    expect(await admin.version()).toBe(v0 + 2);
  });

  it('should let a guard lock in shadow mode record but not reject', async () => {
    await admin.call('PATCH', '/admin/policies/test/locks/rateLimit', { mode: 'shadow' });
    try {
      expect(await probe(app, 'rateLimit')).toBe(200);
      const status = await admin.get<{
        byLock: Record<string, Record<string, { shadow_rejected: number }>>;
      }>('/admin/status');
      expect(status.body.byLock.rateLimit?.test?.shadow_rejected).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.call('PATCH', '/admin/policies/test/locks/rateLimit', { mode: 'enforce' });
    }
    expect(await probe(app, 'rateLimit')).toBe(429);
  });

  it('should revert a time-boxed override by itself', async () => {
    const until = new Date(Date.now() + 1_500).toISOString();
    const r = await admin.call('PATCH', '/admin/policies/test/locks/signature', {
      mode: 'off',
      until,
    });
    expect(r.status).toBe(200);
    expect(await admin.effective('test', 'signature')).toBe('off');
    expect(await probe(app, 'signature')).toBe(200);
    await eventually(
      () => admin.effective('test', 'signature'),
      (m) => m === 'enforce',
      5_000,
      100,
    );
    expect(await probe(app, 'signature')).toBe(401);
  });

  it('should end a time-boxed override early on request', async () => {
    await admin.call('PATCH', '/admin/policies/test/locks/signature', {
      mode: 'shadow',
      until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(await probe(app, 'signature')).toBe(200);
    const r = await admin.call<{ policySet: { policies: Record<string, RoutePolicy> } }>(
      'DELETE',
      '/admin/policies/test/locks/signature/override',
    );
    expect(r.status).toBe(200);
    expect(r.body.policySet.policies.test!.locks.signature).toEqual({ mode: 'enforce' });
    expect(await probe(app, 'signature')).toBe(401);
  });

  it('should roll back to an earlier version as a new version, restoring its behaviour', async () => {
    const good = await admin.version();
    await admin.call('PATCH', '/admin/policies/test/locks/signature', { mode: 'off' });
    expect(await probe(app, 'signature')).toBe(200);
    const rb = await admin.call<{ version: number; changed: boolean }>(
      'POST',
      '/admin/policies/rollback',
      { version: good },
    );
    expect(rb.status).toBe(200);
    expect(rb.body).toMatchObject({ changed: true, version: good + 2 });
    expect(await probe(app, 'signature')).toBe(401);
    const versions = await admin.get<{
      active: number;
      versions: { version: number; actor: string; summary: string }[];
    }>('/admin/policies/versions');
    expect(versions.body.active).toBe(good + 2);
    expect(versions.body.versions[0]).toMatchObject({
      version: good + 2,
      actor: 'env',
      summary: `rollback to version ${good}`,
    });
    expect(
      (await admin.call('POST', '/admin/policies/rollback', { version: 99_999 })).body,
    ).toMatchObject({ status: 404, error: 'version_not_found' });
  });

  it('should reject an invalid body with a 400 naming each problem, and change nothing', async () => {
    const before = await admin.version();
    const cases: [string, string, unknown, RegExp[]][] = [
      [
        'PATCH',
        '/admin/policies/test/locks/signature',
        { mode: 'sometimes', until: 'tomorrow', extra: 1 },
        [/mode/, /until/, /extra/],
      ],
      [
        'PATCH',
        '/admin/policies/test/locks/signature',
        { mode: 'off', until: new Date(Date.now() - 1000).toISOString() },
        [/until: must be in the future/],
      ],
      [
        'PUT',
        '/admin/policies/test',
        { locks: { signature: { mode: 'maybe' }, teleport: { mode: 'enforce' } } },
        [/policies\.test\.locks\.signature\.mode/, /teleport/],
      ],
      ['DELETE', '/admin/policies/test', undefined, [/used by a route/]],
      [
        'PATCH',
        '/admin/policies/test/locks/signature/options',
        { options: { mode: 'off' } },
        [/options\.mode/],
      ],
      [
        'PATCH',
        '/admin/policies/test/locks/signature/options',
        { options: 'x' },
        [/options must be an object/],
      ],
      ['POST', '/admin/policies/rollback', { version: 'one' }, [/version must be an integer/]],
    ];
    for (const [method, path, body, patterns] of cases) {
      const r = await admin.call<{ status: number; problems: string[] }>(method, path, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      for (const p of patterns) expect(r.body.problems.join('\n')).toMatch(p);
      expect(r.body.problems.length).toBeGreaterThanOrEqual(patterns.length);
    }
    const malformed = await admin.call(
      'PATCH',
      '/admin/policies/test/locks/signature',
      '{"mode": "off"',
      { 'content-type': 'application/json' },
    );
    expect(malformed.status).toBe(400);
    expect(await admin.version()).toBe(before);
    expect(await probe(app, 'signature')).toBe(401);
  });

  it('should answer 404 for an unknown policy and 400 for an unknown lock', async () => {
    expect(
      (await admin.call('PATCH', '/admin/policies/nope/locks/signature', { mode: 'off' })).body,
    ).toMatchObject({ status: 404, error: 'policy_not_found' });
    expect(
      (await admin.call('PATCH', '/admin/policies/test/locks/teleport', { mode: 'off' })).body,
    ).toMatchObject({ status: 400, error: 'unknown_lock' });
  });

  it('should merge lock options and replace whole policies', async () => {
    const r = await admin.call<{ policySet: { policies: Record<string, RoutePolicy> } }>(
      'PATCH',
      '/admin/policies/test/locks/rateLimit/options',
      { options: { failMode: 'closed', tiers: { pro: 5 } } },
    );
    expect(r.status).toBe(200);
    expect(r.body.policySet.policies.test!.locks.rateLimit).toEqual({
      mode: 'enforce',
      failMode: 'closed',
      tiers: { pro: 5 },
    });
    const put = await admin.call<{ policySet: { policies: Record<string, RoutePolicy> } }>(
      'PUT',
      '/admin/policies/extra-one',
      { description: 'made at run time', locks: { rateLimit: { mode: 'shadow' } } },
    );
    expect(put.status).toBe(200);
    expect(put.body.policySet.policies['extra-one']).toEqual({
      description: 'made at run time',
      locks: { rateLimit: { mode: 'shadow' } },
    });
    expect((await admin.call('DELETE', '/admin/policies/extra-one')).status).toBe(200);
  });

  it('should answer 404 lock_not_installed for Bloom filters and breaker status while no port is provided', async () => {
    for (const [method, path] of [
      ['GET', '/admin/bloom'],
      ['POST', '/admin/bloom/rebuild'],
      ['POST', '/admin/bloom/rollback'],
      ['GET', '/admin/breakers'],
    ] as const) {
      const r = await admin.call(method, path);
      expect(r.status, path).toBe(404);
      expect(r.body).toMatchObject({ error: 'lock_not_installed' });
    }
  });

  it('should force, unforce and reset a breaker as policy changes of its slice', async () => {
    const until = new Date(Date.now() + 60_000).toISOString();
    const forced = await admin.call<{ policySet: { policies: Record<string, RoutePolicy> } }>(
      'PUT',
      '/admin/breakers/test/force',
      { state: 'open', until },
    );
    expect(forced.status).toBe(200);
    expect(forced.body.policySet.policies.test!.locks.circuitBreaker).toEqual({
      mode: 'enforce',
      force: 'open',
      forceUntil: Date.parse(until),
    });
    const reset = await admin.call<{ policySet: { policies: Record<string, RoutePolicy> } }>(
      'POST',
      '/admin/breakers/test/reset',
    );
    expect(reset.body.policySet.policies.test!.locks.circuitBreaker).toEqual({
      mode: 'enforce',
      resetAt: expect.any(Number),
    });
    expect((await admin.call('PUT', '/admin/breakers/test/force', { state: 'ajar' })).status).toBe(
      400,
    );
    const audit = await admin.get<{ entries: { action: string }[] }>('/admin/audit?limit=2');
    expect(audit.body.entries.map((e) => e.action)).toEqual(['breaker.reset', 'breaker.force']);
  });

  it('should show a new secret once, at creation and rotation, and never again in any admin answer', async () => {
    const seen: string[] = [];
    const created = await admin.call<{
      app: { id: string; secrets: { id: string }[] };
      secret: { id: string; value: string };
    }>('POST', '/admin/apps', { id: `app-${adapter}`, tier: 'pro' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body.secret.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    seen.push(created.body.secret.value);
    const id = created.body.app.id;
    const dup = await admin.call('POST', '/admin/apps', { id, tier: 'pro' });
    expect(dup.body).toMatchObject({ status: 409, error: 'app_exists' });

    const rotated = await admin.call<{ secret: { id: string; value: string } }>(
      'POST',
      `/admin/apps/${id}/secrets`,
    );
    expect(rotated.status).toBe(201);
    expect(rotated.body.secret.id).toBe('k2');
    seen.push(rotated.body.secret.value);
    expect((await admin.call('POST', `/admin/apps/${id}/secrets/k1/retire`)).status).toBe(200);
    expect((await admin.call('POST', `/admin/apps/${id}/secrets/k2/retire`)).body).toMatchObject({
      status: 409,
      error: 'last_secret',
    });
    expect((await admin.call('POST', `/admin/apps/${id}/secrets/k9/retire`)).body).toMatchObject({
      status: 404,
      error: 'secret_not_found',
    });
    const later = new Date(Date.now() + 86_400_000).toISOString();
    await admin.call('POST', `/admin/apps/${id}/secrets`);
    const scheduled = await admin.call<{ secrets: { id: string; notAfter?: string }[] }>(
      'POST',
      `/admin/apps/${id}/secrets/k2/retire`,
      { notAfter: later },
    );
    expect(scheduled.body.secrets).toEqual([
      { id: 'k2', notAfter: later, expired: false },
      { id: 'k3', expired: false },
    ]);
    const off = await admin.call<{ active: boolean }>('POST', `/admin/apps/${id}/deactivate`);
    expect(off.body.active).toBe(false);
    expect((await admin.call('POST', '/admin/apps/nope/deactivate')).body).toMatchObject({
      status: 404,
      error: 'app_not_found',
    });
    expect(
      (await admin.call('POST', '/admin/apps', { id: 'bad id!', tier: 'Pro', secret: 'mine' }))
        .body,
    ).toMatchObject({ status: 400 });

    const creationBodies = new Set([created.text, rotated.text]);
    const later_ = [
      await admin.get('/admin/apps'),
      await admin.get('/admin/audit?limit=200'),
      await admin.get('/admin/config'),
      await admin.get('/admin/status'),
      await admin.get('/admin/policies'),
    ];
    expect(later_.every((r) => r.status === 200)).toBe(true);
    const audit = later_[1]!.body as {
      entries: { actor: string; action: string; changes: { path: string }[] }[];
    };
    expect(audit.entries.filter((e) => e.action === 'app.rotate_secret').at(-1)).toMatchObject({
      actor: 'env',
      changes: [{ path: `apps.${id}.keys.k2`, to: { notAfter: null } }],
    });
    for (const body of admin.bodies) {
      if (creationBodies.has(body)) continue;
      for (const secret of seen) expect(body).not.toContain(secret);
    }
  });

  it('should page the audit log newest first', async () => {
    const first = await admin.get<{ entries: { id: string }[]; next?: string }>(
      '/admin/audit?limit=2',
    );
    expect(first.body.entries).toHaveLength(2);
    const second = await admin.get<{ entries: { id: string }[] }>(
      `/admin/audit?limit=2&before=${first.body.next}`,
    );
    const order = (id: string): bigint =>
      BigInt(id.split('-')[0]!) * 1_000_000n + BigInt(id.split('-')[1]!);
    expect(order(second.body.entries[0]!.id)).toBeLessThan(order(first.body.entries[1]!.id));
    expect((await admin.get('/admin/audit?limit=0')).status).toBe(400);
    expect((await admin.get('/admin/audit?before=nope')).status).toBe(400);
  });

  it('should publish the admin operations in the OpenAPI document with bearer auth', async () => {
    const doc = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    expect(doc.paths['/admin/policies/{policy}/locks/{lock}']?.patch?.security).toEqual([
      { admin: [] },
    ]);
    expect(
      Object.keys(doc.paths).filter((p) => p.startsWith('/admin')).length,
    ).toBeGreaterThanOrEqual(15);
  });

  it('should count changes and expose the policy version in /metrics', async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toMatch(new RegExp(`rampart_policy_version ${await admin.version()}\\b`));
    expect(text).toMatch(
      /rampart_admin_changes_total\{action="policy.lock_mode",result="applied"\} \d+/,
    );
    expect(text).toMatch(/rampart_admin_auth_failures_total [1-9]/);
  });
});

describe('admin API without any admin credential', () => {
  it('should stay closed: 503 admin_not_configured on every admin route, even with a token', async () => {
    const app = await startApp(
      {},
      {
        locks: [TestLocksModule],
        config: (c) => ({ ...c, policies: { ...c.policies, test: allEnforced() } }),
      },
    );
    try {
      const admin = new AdminClient(app, 'any-token-0123456789');
      for (const [method, path] of [
        ['GET', '/admin/config'],
        ['PATCH', '/admin/policies/test/locks/signature'],
      ] as const) {
        const r = await admin.call(method, path, method === 'PATCH' ? { mode: 'off' } : undefined);
        expect(r.status).toBe(503);
        expect(r.body).toMatchObject({ error: 'admin_not_configured' });
      }
      expect(await probe(app, 'signature')).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('admin API with Bloom and breaker ports provided by another module', () => {
  let app: RunningApp;
  let admin: AdminClient;
  beforeAll(async () => {
    app = await startApp(
      { ADMIN_TOKEN },
      {
        locks: [TestLocksModule],
        imports: [AdminTestPortsModule],
        config: (c) => ({ ...c, policies: { ...c.policies, test: allEnforced() } }),
      },
    );
    admin = new AdminClient(app);
  });
  afterAll(() => app?.close());

  it('should show filter status, rebuild and roll back through the port, auditing the active versions', async () => {
    const status = await admin.get<{
      filters: { name: string; active: { version: number; items: number; targetFp: number } }[];
    }>('/admin/bloom');
    expect(status.status).toBe(200);
    expect(status.body.filters.map((f) => [f.name, f.active.version])).toEqual([
      ['terms', 1],
      ['item-ids', 1],
    ]);
    const rebuilt = await admin.call<{ filters: { name: string; active: { version: number } }[] }>(
      'POST',
      '/admin/bloom/rebuild',
      { filter: 'terms' },
    );
    expect(rebuilt.body.filters.find((f) => f.name === 'terms')!.active.version).toBe(2);
    const back = await admin.call<{ filters: { name: string; active: { version: number } }[] }>(
      'POST',
      '/admin/bloom/rollback',
      { filter: 'terms' },
    );
    expect(back.body.filters.find((f) => f.name === 'terms')!.active.version).toBe(1);
    expect(
      (await admin.call('POST', '/admin/bloom/rollback', { filter: 'terms', version: 9 })).body,
    ).toMatchObject({ status: 404, error: 'bloom_build_not_found' });
    expect((await admin.call('POST', '/admin/bloom/rebuild', { filter: 'Terms!' })).status).toBe(
      400,
    );
    const audit = await admin.get<{
      entries: { action: string; target: string; changes: unknown[] }[];
    }>('/admin/audit?limit=2');
    expect(audit.body.entries).toEqual([
      expect.objectContaining({
        action: 'bloom.rollback',
        target: 'bloom:terms',
        changes: [{ path: 'bloom.terms', from: 2, to: 1 }],
      }),
      expect.objectContaining({
        action: 'bloom.rebuild',
        target: 'bloom:terms',
        changes: [{ path: 'bloom.terms', from: 1, to: 2 }],
      }),
    ]);
  });

  it('should answer 404 lock_not_installed for apps while no AppRegistry (signature lock) is installed', async () => {
    for (const [method, path, body] of [
      ['GET', '/admin/apps', undefined],
      ['POST', '/admin/apps', { id: 'x', tier: 'free' }],
      ['POST', '/admin/apps/x/secrets', undefined],
    ] as const) {
      const r = await admin.call(method, path, body);
      expect(r.body, path).toMatchObject({
        status: 404,
        error: 'lock_not_installed',
        lock: 'signature',
      });
    }
  });

  it('should show breaker status through the port', async () => {
    const r = await admin.get<{ breakers: { name: string; state: string }[] }>('/admin/breakers');
    expect(r.body.breakers).toEqual([expect.objectContaining({ name: 'search', state: 'closed' })]);
  });
});

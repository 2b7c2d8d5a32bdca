/**
 * Bans (docs/rate-limit.md#bans) on two instances sharing one Redis, both adapters: a ban set on
 * one instance is enforced on the other from memory (no Redis call per banned request), scoped by
 * app, lapses by itself and is lifted through the admin API; apps cannot ban (admin-only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/sdk/index.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { useBanInstances } from '../support/ban-instances.js';
import { canStartRedis } from '../support/redis-env.js';
import { monitorCommands } from '../support/redis-server.js';
import {
  SessionKeyRoutesModule,
  sessionKeyApps,
  withSessionKeyPolicy,
} from '../support/session-key-routes.js';

/** The session-key policy with room for every call of this file (the limit is not what is tested). */
const roomy = (c: RampartConfig): RampartConfig => {
  const out = withSessionKeyPolicy(c);
  const rl = out.policies['sk-user']!.locks.rateLimit as unknown as {
    rules: { capacity: number }[];
  };
  rl.rules[0]!.capacity = 1_000;
  return out;
};

interface Ban {
  id: string;
  subject: string;
  app: string | null;
  until: string;
}

describe.skipIf(!canStartRedis()).each(ADAPTERS)('bans on two instances (%s)', (adapter) => {
  const apps = sessionKeyApps();
  const secrets: Record<string, string> = { 'sk-web': apps.web, 'sk-other': apps.other };
  const two = useBanInstances(
    adapter,
    { APPS_FILE: apps.file },
    { imports: [SessionKeyRoutesModule], config: roomy },
  );

  /** A call signed by `appId` for its user `user` (trusted user header). */
  const call = async (on: RunningApp, appId: string, user: string) => {
    const url = `${on.url}/sk-test/user`;
    const headers = {
      ...signRequest({ appId, secret: secrets[appId]!, method: 'GET', url }),
      'x-user-id': user,
    };
    const res = await fetch(url, { headers });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  const status = async (on: RunningApp, appId: string, user: string) =>
    (await call(on, appId, user)).status;

  it('should enforce on instance B a ban set on A, for that app only, until lifted', async () => {
    const user = `u-lift-${adapter}`;
    expect(await status(two.b, 'sk-web', user)).toBe(200);
    const set = await two.adminA.call<Ban>('POST', '/admin/bans', {
      dimension: 'user',
      subject: user,
      app: 'sk-web',
      ttlSeconds: 600,
      reason: 'abuse report 17',
    });
    expect(set.status).toBe(201);
    expect(set.text).not.toContain(user);
    await eventually(
      () => status(two.b, 'sk-web', user),
      (s) => s === 403,
      2_000,
    );
    const refused = await call(two.b, 'sk-web', user);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.parse(refused.text)).toMatchObject({ error: 'banned', reason: 'abuse report 17' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(500);
    expect(refused.text).not.toContain(user);
    // The same id named by another app is another user.
    expect(await status(two.b, 'sk-other', user)).toBe(200);
    const listed = await two.adminB.get<{ bans: Ban[] }>('/admin/bans?app=sk-web');
    expect(listed.body.bans.map((x) => x.id)).toContain(set.body.id);
    expect(listed.text).not.toContain(user);
    const lift = await two.adminB.call('DELETE', `/admin/bans/${set.body.id}`);
    expect(lift.status).toBe(200);
    await eventually(
      () => status(two.a, 'sk-web', user),
      (s) => s === 200,
      2_000,
    );
    expect(await status(two.b, 'sk-web', user)).toBe(200);
    expect((await two.adminA.call('DELETE', `/admin/bans/${set.body.id}`)).body).toMatchObject({
      error: 'ban_not_found',
    });
    const audit = await two.adminA.get<{ entries: { action: string; target: string }[] }>(
      '/admin/audit',
    );
    const actions = audit.body.entries
      .filter((e) => e.target === `ban:${set.body.id}`)
      .map((e) => e.action);
    expect(actions.sort()).toEqual(['ban.add', 'ban.lift']);
    expect(audit.text).not.toContain(user);
  });

  it('should let a ban lapse by itself on every instance', async () => {
    const user = `u-lapse-${adapter}`;
    const set = await two.adminA.call('POST', '/admin/bans', {
      dimension: 'user',
      subject: user,
      app: 'sk-web',
      ttlSeconds: 2,
    });
    expect(set.status).toBe(201);
    expect(await status(two.a, 'sk-web', user)).toBe(403);
    await eventually(
      () => status(two.b, 'sk-web', user),
      (s) => s === 200,
      6_000,
      100,
    );
    expect(await status(two.a, 'sk-web', user)).toBe(200);
  });

  it('should ban a whole app, and a user of every app with global: true', async () => {
    const user = `u-global-${adapter}`;
    const g = await two.adminA.call<Ban>('POST', '/admin/bans', {
      dimension: 'user',
      subject: user,
      global: true,
      ttlSeconds: 600,
    });
    expect(g.body.app).toBeNull();
    const app = await two.adminB.call<Ban>('POST', '/admin/bans', {
      dimension: 'app',
      subject: 'sk-other',
      ttlSeconds: 600,
    });
    await eventually(
      async () => [await status(two.b, 'sk-web', user), await status(two.a, 'sk-other', 'someone')],
      (s) => s[0] === 403 && s[1] === 403,
      2_000,
    );
    expect(await status(two.a, 'sk-web', 'someone')).toBe(200);
    for (const id of [g.body.id, app.body.id])
      expect((await two.adminA.call('DELETE', `/admin/bans/${id}`)).status).toBe(200);
  });

  it('should let no app ban: without the admin token, nothing is set', async () => {
    const user = `u-hostile-${adapter}`;
    const url = `${two.b.url}/admin/bans`;
    const body = JSON.stringify({
      dimension: 'user',
      subject: user,
      app: 'sk-web',
      ttlSeconds: 60,
    });
    // The hostile app signs its call: an app signature is no admin credential.
    const signed = signRequest({
      appId: 'sk-other',
      secret: apps.other,
      method: 'POST',
      url,
      body,
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...signed, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('admin_unauthorized');
    expect((await two.adminB.get<{ bans: Ban[] }>('/admin/bans')).body.bans).toEqual([]);
    expect(await status(two.a, 'sk-web', user)).toBe(200);
  });

  it('should refuse bad bans with invalid_ban and unknown ids with ban_not_found', async () => {
    const bad = [
      {},
      { dimension: 'user', subject: 'x', ttlSeconds: 60 },
      { dimension: 'user', subject: 'x', app: 'sk-web', global: true, ttlSeconds: 60 },
      { dimension: 'ip', subject: 'not-an-ip', global: true, ttlSeconds: 60 },
      { dimension: 'app', subject: 'sk-web', app: 'sk-web', ttlSeconds: 60 },
      { dimension: 'user', subject: 'x', app: 'sk-web' },
      { dimension: 'user', subject: 'x', app: 'sk-web', until: '2000-01-01T00:00:00Z' },
      { dimension: 'user', subject: 'x', app: 'sk-web', ttlSeconds: 60, extra: 1 },
      { dimension: 'bot', subject: 'x', ttlSeconds: 60 },
    ];
    for (const body of bad) {
      const r = await two.adminA.call('POST', '/admin/bans', body);
      expect([r.status, r.body.error]).toEqual([400, 'invalid_ban']);
    }
    const r = await two.adminA.call('DELETE', '/admin/bans/nope');
    expect([r.status, r.body.error]).toEqual([404, 'ban_not_found']);
  });

  it('should answer a banned request without any Redis call', async () => {
    const user = `u-cost-${adapter}`;
    await two.adminA.call('POST', '/admin/bans', {
      dimension: 'user',
      subject: user,
      app: 'sk-web',
      ttlSeconds: 600,
    });
    await eventually(
      () => status(two.b, 'sk-web', user),
      (s) => s === 403,
      2_000,
    );
    const seen: string[][] = [];
    const m = await monitorCommands(two.redis.port, (c) => {
      if (c.source !== 'lua') seen.push(c.args);
    });
    for (let i = 0; i < 20; i++) expect(await status(two.b, 'sk-web', user)).toBe(403);
    const banned = seen.length;
    // A request's own call names its policy's buckets or its app's nonce; a call with a cfg: key is
    // background work (config, and the heartbeat that carries the stats, whose JSON names policies).
    const decides = (args: string[]) =>
      !args.some((x) => x.startsWith('cfg:')) && args.some((x) => /sk-user|sk-web|nonce/.test(x));
    // The control: an allowed request is seen deciding in Redis (its script, with the nonce claim).
    expect(await status(two.b, 'sk-web', `${user}-not-banned`)).toBe(200);
    await eventually(
      () => Promise.resolve(seen.slice(banned).some(decides)),
      (x) => x,
      2_000,
    );
    m.stop();
    // Background work (heartbeats, config checks, Bloom builds) aside, nothing decided them.
    expect(seen.slice(0, banned).filter(decides)).toEqual([]);
  });
});

describe.each(ADAPTERS)('bans without Redis, one instance (%s)', (adapter) => {
  const apps = sessionKeyApps();
  let app: RunningApp;
  let admin: AdminClient;

  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, APPS_FILE: apps.file, ADMIN_TOKEN },
      { search: 'empty', imports: [SessionKeyRoutesModule], config: roomy },
    );
    admin = new AdminClient(app);
  });
  afterAll(() => app?.close());

  const status = async (appId: string, secret: string, user: string) => {
    const url = `${app.url}/sk-test/user`;
    const res = await fetch(url, {
      headers: { ...signRequest({ appId, secret, method: 'GET', url }), 'x-user-id': user },
    });
    await res.arrayBuffer();
    return res.status;
  };

  it('should ban from the memory store at once, for that app only, and lift', async () => {
    const set = await admin.call<Ban>('POST', '/admin/bans', {
      dimension: 'user',
      subject: 'u-mem',
      app: 'sk-web',
      ttlSeconds: 600,
    });
    expect(set.status).toBe(201);
    expect(await status('sk-web', apps.web, 'u-mem')).toBe(403);
    expect(await status('sk-other', apps.other, 'u-mem')).toBe(200);
    expect((await admin.call('DELETE', `/admin/bans/${set.body.id}`)).status).toBe(200);
    expect(await status('sk-web', apps.web, 'u-mem')).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SessionKey,
  deriveSessionKey,
  sessionKeyCredentials,
  signRequest,
  signRequestRfc9421,
} from '../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import {
  SessionKeyRoutesModule,
  sessionKeyApps,
  withSessionKeyPolicy,
} from '../support/session-key-routes.js';

type Body = Record<string, unknown> & { error?: string };

describe.each([
  ['express', false],
  ['fastify', true],
] as const)('session keys over HTTP (%s, Redis: %s)', (adapter, withRedis) => {
  const apps = sessionKeyApps();
  let app: RunningApp;
  let admin: AdminClient;

  beforeAll(async () => {
    app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        APPS_FILE: apps.file,
        ADMIN_TOKEN,
        CORS_ORIGINS: 'http://allowed.example',
        ...(withRedis
          ? {
              REDIS_URL: redisUrl(),
              RAMPART_ENV: uniqueEnv('skeys'),
              REDIS_COMMAND_TIMEOUT_MS: '2000',
            }
          : {}),
      },
      { search: 'empty', imports: [SessionKeyRoutesModule], config: withSessionKeyPolicy },
    );
    admin = new AdminClient(app);
  });
  afterAll(() => app?.close());

  const get = async (key: SessionKey, o: { appId?: string; rfc?: boolean; user?: string } = {}) => {
    const sign = o.rfc ? signRequestRfc9421 : signRequest;
    const url = `${app.url}/sk-test/user`;
    const headers: Record<string, string> = sign({
      ...sessionKeyCredentials(key),
      ...(o.appId ? { appId: o.appId } : {}),
      method: 'GET',
      url,
    });
    if (o.user) headers['x-user-id'] = o.user;
    const res = await fetch(url, { headers });
    return { status: res.status, body: (await res.json()) as Body, res };
  };
  const mint = async (body: unknown, secret = apps.web, appId = 'sk-web') => {
    const url = `${app.url}/v1/session-keys`;
    const text = JSON.stringify(body);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signRequest({ appId, secret, method: 'POST', url, body: text }),
      },
      body: text,
    });
    return { status: res.status, body: (await res.json()) as Body & SessionKey };
  };
  const derive = (user: string) =>
    deriveSessionKey(apps.web, { appId: 'sk-web', user, scope: ['sk-user'], ttl: '2m' });

  it('should mint a key signed with the app secret, and the key should carry its user', async () => {
    const m = await mint({ user: 'alice', ttl: '1m', scope: ['sk-user'] });
    expect(m.status).toBe(201);
    expect(m.body).toMatchObject({ appId: 'sk-web', user: 'alice', scope: ['sk-user'] });
    expect(m.body.expiresAt - m.body.issuedAt).toBe(60);
    for (const rfc of [false, true])
      expect((await get(m.body, { rfc })).body).toEqual({ app: 'sk-web', user: 'alice' });
  });

  it('should refuse minting a TTL over the maximum, or a scope beyond it, with field names', async () => {
    const m = await mint({ user: 'alice', ttl: '6m', scope: ['admin'] });
    expect(m.status).toBe(400);
    expect(m.body.error).toBe('validation_failed');
    expect(m.body.problems).toEqual([
      "ttl: at most 300 s (the app's maxTtl)",
      "scope: admin not in the app's maxScope (sk-user, inference, search)",
    ]);
  });

  it('should refuse an unsigned mint with 401 missing_header, as docs/session-keys.md says', async () => {
    const res = await fetch(`${app.url}/v1/session-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'root' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as Body).error).toBe('missing_header');
  });

  it('should never let a session key mint another one', async () => {
    const key = derive('mallory');
    const url = `${app.url}/v1/session-keys`;
    const body = JSON.stringify({ user: 'root' });
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signRequest({ ...sessionKeyCredentials(key), method: 'POST', url, body }),
      },
      body,
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as Body).error).toBe('key_out_of_scope');
  });

  it('should rate limit the user named by the key and ignore a forged user header', async () => {
    const bob = derive('bob');
    expect((await get(bob)).status).toBe(200);
    expect((await get(bob, { user: 'carol' })).body).toEqual({ app: 'sk-web', user: 'bob' });
    expect((await get(bob, { user: 'carol' })).status).toBe(429);
    expect((await get(derive('bob'), { user: 'dave' })).status).toBe(429);
    expect((await get(derive('carol'))).status).toBe(200);
  });

  it('should refuse a key minted for one app when sent for another', async () => {
    const r = await get(derive('erin'), { appId: 'sk-other' });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('bad_signature');
  });

  it('should refuse one denied key (admin API) and then all keys after an epoch bump', async () => {
    const [a, b] = [derive('frank'), derive('grace')];
    const denied = await admin.call('POST', '/admin/apps/sk-web/session-keys/deny', {
      keyId: a.keyId,
    });
    expect(denied.status).toBe(200);
    const r = await get(a);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('key_revoked');
    expect(r.res.headers.get('www-authenticate')).toContain('error="key_revoked"');
    expect((await get(b)).status).toBe(200);

    const bumped = await admin.call<{ sessionKeys: { epoch: number } }>(
      'POST',
      '/admin/apps/sk-web/session-keys/revoke',
    );
    expect(bumped.status).toBe(200);
    expect(bumped.body.sessionKeys.epoch).toBeGreaterThanOrEqual(b.issuedAt);
    expect((await get(b)).body.error).toBe('key_revoked');
    await new Promise((r) => setTimeout(r, 1100 - (Date.now() % 1000)));
    expect((await get(derive('heidi'))).status).toBe(200);
  });

  it('should allow the signature headers in a CORS preflight for allowed origins only', async () => {
    const preflight = (origin: string) =>
      fetch(`${app.url}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-app-id,x-key-id,x-signature,x-nonce,x-timestamp',
        },
      });
    const ok = await preflight('http://allowed.example');
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://allowed.example');
    expect(ok.headers.get('access-control-allow-headers')).toContain('x-key-id');
    const no = await preflight('http://evil.example');
    expect(no.headers.get('access-control-allow-origin')).toBeNull();
  });
});

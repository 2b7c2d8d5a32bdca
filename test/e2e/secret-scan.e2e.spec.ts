/**
 * The secret scan checks itself: one app with every kind of secret (admin
 * token, metrics token, upstream API key, rate-limit key secret, apps file
 * secrets, secrets generated through the admin API), driven through every
 * route family — search, items, signed inference through the upstream, the
 * admin API, health, metrics, docs — including failures (bad signatures,
 * wrong tokens, bad bodies, debug apps). Then: nothing leaked, the collector
 * saw the traffic, and a planted leak is found. Every other e2e file is
 * scanned the same way by test/support/e2e-setup.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { RunningApp, startApp } from '../support/app.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { addSecret, logSink, scanAndReset } from '../support/secret-scan.js';
import { testApps } from '../support/signature-routes.js';

const UPSTREAM_KEY = 'sk-upstream-key-for-the-secret-scan-0123456789';
const METRICS_TOKEN = 'metrics-token-for-the-secret-scan-0123';
const KEY_SECRET = 'rate-limit-key-secret-for-the-scan-0123';

describe('secret scan over a whole app', () => {
  const apps = testApps();
  let fake: FakeOpenAI;
  let app: RunningApp;
  let admin: AdminClient;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startApp({
      APPS_FILE: apps.file,
      ADMIN_TOKEN,
      METRICS_TOKEN,
      RATE_LIMIT_KEY_SECRET: KEY_SECRET,
      INFERENCE_UPSTREAM_URL: fake.url,
      INFERENCE_UPSTREAM_API_KEY: UPSTREAM_KEY,
      LOG_LEVEL: 'silent',
    });
    admin = new AdminClient(app);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  const sign = (appId: string, secret: string, method: string, url: string, body?: string) =>
    signRequest({ appId, secret, method, url, body });
  const chat = JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 8,
  });

  async function drive(): Promise<void> {
    const u = app.url;
    const main = { id: apps.main.appId, secret: apps.main.secrets[0]! };
    const calls: [string, RequestInit][] = [
      ['/v1/search?q=paris', {}],
      ['/v1/search?q=qqxzvw', {}],
      ['/v1/search/items/2988507', {}],
      ['/v1/search?q=%C0%AE', {}],
      ['/v1/search?q=paris', { headers: sign(main.id, main.secret, 'GET', '/v1/search?q=paris') }],
      ['/v1/whoami', { headers: sign(main.id, 'wrong-secret-0123456789', 'GET', '/v1/whoami') }],
      [
        '/v1/whoami',
        { headers: sign(apps.debug.appId, 'wrong-secret-0123456789', 'GET', '/v1/whoami') },
      ],
      ['/v1/time', {}],
      ['/health/live', {}],
      ['/health/ready', {}],
      ['/metrics', {}],
      ['/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }],
      ['/metrics', { headers: { authorization: 'Bearer not-the-metrics-token-0000' } }],
      ['/docs-json', {}],
      ['/v1/models', { headers: sign(main.id, main.secret, 'GET', '/v1/models') }],
    ];
    for (const [path, init] of calls) await (await fetch(`${u}${path}`, init)).text();
    for (const stream of [false, true]) {
      const body = stream ? chat.replace('{', '{"stream":true,') : chat;
      const res = await fetch(`${u}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...sign(main.id, main.secret, 'POST', '/v1/chat/completions', body),
        },
        body,
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    expect(fake.lastRequest?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    // The upstream failing, and a bad body.
    fake.setErrorRate(1);
    await fetch(`${u}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...sign(main.id, main.secret, 'POST', '/v1/chat/completions', chat),
      },
      body: chat,
    }).then((r) => r.text());
    fake.reset();
    await fetch(`${u}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":',
    }).then((r) => r.text());

    // The admin API: reads, a created app and a rotated secret (the one-time answers), wrong tokens.
    for (const path of [
      '/admin/config',
      '/admin/apps',
      '/admin/policies',
      '/admin/audit',
      '/admin/status',
      '/admin/bloom',
      '/admin/breakers',
    ])
      expect((await admin.get(path)).status, path).toBe(200);
    const created = await admin.call<{ secret: { value: string } }>('POST', '/admin/apps', {
      id: 'scan-app',
      tier: 'free',
    });
    expect(created.status).toBe(201);
    const rotated = await admin.call('POST', '/admin/apps/scan-app/secrets');
    expect(rotated.status).toBe(201);
    const s = created.body.secret.value;
    const signed = await fetch(`${u}/v1/whoami`, {
      headers: sign('scan-app', s, 'GET', '/v1/whoami'),
    });
    expect(signed.status).toBe(200);
    await signed.text();
    await admin.get('/admin/apps');
    await admin.get('/admin/audit');
    expect(
      (await admin.withToken('wrong-admin-token-0123456789').get('/admin/config')).status,
    ).toBe(401);
    expect(
      (await admin.call('POST', '/admin/apps', { id: 'x', tier: 'free', secret: UPSTREAM_KEY }))
        .status,
    ).toBe(400);
  }

  it('should find no secret in any log line or response, and have seen them all', async () => {
    await drive();
    const out = scanAndReset();
    expect(out.leaks).toEqual([]);
    expect(out.responses).toBeGreaterThan(30);
    expect(out.logLines).toBeGreaterThan(10);
    // Admin and metrics tokens, upstream key, key secret, 3+2 apps file secrets, 2 generated ones.
    expect(out.secrets).toBeGreaterThanOrEqual(10);
  });

  it('should report a secret planted in a log line or a response', async () => {
    addSecret('planted-secret-value-0123456789', 'planted');
    const sink = logSink(Infinity);
    await new Promise<void>((r) =>
      sink.write('{"level":30,"msg":"oops planted-secret-value-0123456789"}\n', () => r()),
    );
    expect(scanAndReset().leaks).toEqual(['planted in log']);
    // A generated secret seen a second time, outside its creation answer, is a leak too.
    const again = await admin.call('POST', '/admin/apps', { id: 'scan-app-2', tier: 'free' });
    const value = (again.body as { secret: { value: string } }).secret.value;
    await fetch(`${app.url}/v1/search?q=${value}`).then((r) => r.text());
    expect(scanAndReset().leaks.join('\n')).toMatch(
      /a generated app secret in response GET \/v1\/search\?q=/,
    );
  });
});

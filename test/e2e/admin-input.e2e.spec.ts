/**
 * Admin bodies and headers as an attacker sends them (issue 12): hostile
 * nesting, inherited names as keys, a duplicated Authorization header, an
 * audit cursor at the very start — a clear 4xx, never a 5xx, nothing changed.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const TOKEN = 'admin-input-token-0123456789';
const DEEP = `${'['.repeat(1_500)}${']'.repeat(1_500)}`;

describe.each(ADAPTERS)('admin input (%s)', (adapter) => {
  let app: RunningApp;

  const call = async (method: string, path: string, body?: string) => {
    const res = await fetch(app.url + path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const version = async () =>
    ((await call('GET', '/admin/config')).body as { policySet: { version: number } }).policySet
      .version;

  beforeAll(async () => {
    app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        ADMIN_TOKEN: TOKEN,
        ...(redisUrl() ? { REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('adm') } : {}),
      },
      { search: 'empty' },
    );
  });
  afterAll(() => app?.close());

  it.each([
    ['PUT', '/admin/policies/search', `{"locks":{"signature":{"mode":"off","x":${DEEP}}}}`],
    ['PATCH', '/admin/policies/search/locks/rateLimit/options', `{"options":{"rules":${DEEP}}}`],
    ['POST', '/admin/apps', `{"id":"deep","tier":"free","debug":${DEEP}}`],
    ['POST', '/admin/policies/rollback', `{"version":${DEEP}}`],
  ])(
    'should refuse a hostile nested %s %s body with 400, changing nothing',
    async (m, path, body) => {
      const before = await version();
      const res = await call(m, path, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'malformed_body', limit: 'depth' });
      expect(await version()).toBe(before);
    },
  );

  it.each([
    [
      'PATCH',
      '/admin/policies/search/locks/rateLimit/options',
      '{"options":{"toString":1}}',
      'options.toString',
    ],
    [
      'PATCH',
      '/admin/policies/search/locks/rateLimit/options',
      '{"options":{"hasOwnProperty":1}}',
      'options.hasOwnProperty',
    ],
    [
      'PATCH',
      '/admin/policies/search/locks/rateLimit/options',
      '{"options":{"tiers":{"toString":2}}}',
      'options.tiers.toString',
    ],
    [
      'PATCH',
      '/admin/policies/search/locks/rateLimit',
      '{"mode":"shadow","toString":1}',
      'toString',
    ],
    ['PUT', '/admin/policies/search', '{"locks":{"toString":{"mode":"off"}}}', 'locks.toString'],
    ['POST', '/admin/apps', '{"id":"p1","tier":"free","__proto__":{"admin":true}}', '__proto__'],
    ['POST', '/admin/apps', '{"id":"p1","tier":"free","constructor":{"x":1}}', 'constructor'],
  ])(
    'should refuse %s %s with an inherited name as a key, naming the field',
    async (m, path, body, field) => {
      const before = await version();
      const res = await call(m, path, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'malformed_body', field });
      expect(await version()).toBe(before);
    },
  );

  it('should refuse an app of a tier no rate-limit policy knows, naming the known ones', async () => {
    const res = await call('POST', '/admin/apps', '{"id":"tier-x","tier":"platinum"}');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_failed' });
    expect(String(res.body.detail)).toMatch(/tier must be one of free, pro/);
    expect((await call('POST', '/admin/apps', '{"id":"tier-ok","tier":"pro"}')).status).toBe(201);
  });

  it('should refuse a rule whose rate would switch the limit off', async () => {
    const before = await version();
    const res = await call(
      'PATCH',
      '/admin/policies/search/locks/rateLimit/options',
      '{"options":{"rules":[{"name":"x","dimension":"ip","capacity":5,"rate":"99999999999999999999999/s"}]}}',
    );
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/rate: must lie between/);
    expect(await version()).toBe(before);
  });

  it('should answer an audit cursor at the very start with an empty page', async () => {
    const res = await call('GET', '/admin/audit?before=0-0');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ entries: [] });
  });

  it('should refuse two Authorization headers with 401 malformed_header, even if the first is right', async () => {
    const { hostname, port } = new URL(app.url);
    const got = await new Promise<string>((resolve) => {
      const s = connect(Number(port), hostname);
      let text = '';
      s.on('data', (c) => (text += c.toString()));
      s.on('close', () => resolve(text));
      s.write(
        `GET /admin/config HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
          `Authorization: Bearer ${TOKEN}\r\nAuthorization: Bearer someone-else-entirely\r\n\r\n`,
      );
    });
    expect(got).toMatch(/^HTTP\/1\.1 401 /);
    expect(got).toMatch(/"error":"malformed_header"/);
    expect(got).not.toContain(TOKEN);
  });
});

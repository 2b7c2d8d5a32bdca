import { createSigner, httpbis } from 'http-message-signatures';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Agent, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockChain } from '../../src/chain/lock-chain.service.js';
import { contentDigest } from '../../src/locks/signature/rfc9421/content-digest.js';
import { createSignedFetch, signRequest, signingInterceptor } from '../../src/sdk/index.js';
import { runSignCli } from '../../src/sdk/run-sign-cli.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import {
  SignatureRoutesModule,
  testApps,
  withSignaturePolicies,
} from '../support/signature-routes.js';

/** Names a body may not use as keys (refused before any lock, issue 12). */
const INHERITED = ['prototype', ...Object.getOwnPropertyNames(Object.prototype)];

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

type Problem = Record<string, unknown> & { error?: string; status?: number };

describe.each(ADAPTERS)('signature lock over HTTP (%s, memory nonce store)', (adapter) => {
  const apps = testApps();
  const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  let app: RunningApp;
  let url: string;

  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, APPS_FILE: apps.file },
      { search: 'empty', imports: [SignatureRoutesModule], config: withSignaturePolicies() },
    );
    url = app.url;
  });
  afterAll(() => app?.close());

  const post = (path: string, body: string, headers: Record<string, string>): Promise<Response> =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const signedPost = (
    path: string,
    body: string,
    o: Partial<Parameters<typeof signRequest>[0]> = {},
  ): Promise<Response> =>
    post(path, body, signRequest({ ...creds, method: 'POST', url: `${url}${path}`, body, ...o }));
  const problem = async (res: Response): Promise<Problem> => {
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return (await res.json()) as Problem;
  };

  it('should pass a request signed with the SDK and give the app id and tier to the later locks', async () => {
    const body = '{"model":"demo",  "messages":[]}';
    const res = await createSignedFetch(creds)(`${url}/sig-test/echo?b=2&a=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      app: 'app-e2e',
      tier: 'pro',
      bodyLength: body.length,
    });
  });

  it('should verify the raw wire path and a re-ordered, re-escaped query', async () => {
    const path = '/sig-test/items/%E4%B8%AD?tag=b&q=new%20york&tag=a';
    const headers = signRequest({
      ...creds,
      method: 'GET',
      url: `${url}/sig-test/items/%E4%B8%AD?q=new%20york&tag=a&tag=b`,
    });
    const res = await fetch(`${url}${path}`, { headers });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ app: 'app-e2e', id: '中' });
  });

  it('should refuse an unsigned request on a required route with missing_header and both challenges', async () => {
    const res = await post('/sig-test/echo', '{}', {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Rampart-HMAC-SHA256 realm="rampart", error="missing_header", Signature realm="rampart"/,
    );
    expect(await problem(res)).toMatchObject({
      status: 401,
      error: 'missing_header',
      type: 'https://rampart.dev/problems/missing_header',
    });
  });

  it('should let an unsigned request through an optional route as anonymous, and still verify a signed one', async () => {
    expect(await (await post('/sig-test/optional', '{}', {})).json()).toMatchObject({
      app: null,
      tier: null,
    });
    expect(await (await signedPost('/sig-test/optional', '{}')).json()).toMatchObject({
      app: 'app-e2e',
      tier: 'pro',
    });
    const forged = await post(
      '/sig-test/optional',
      '{}',
      signRequest({
        ...creds,
        secret: randomBytes(32).toString('hex'),
        method: 'POST',
        url: `${url}/sig-test/optional`,
        body: '{}',
      }),
    );
    expect(forged.status).toBe(401);
    expect((await problem(forged)).error).toBe('bad_signature');
  });

  it('should refuse a replayed request (same nonce) with replayed_nonce', async () => {
    const headers = signRequest({
      ...creds,
      method: 'POST',
      url: `${url}/sig-test/echo`,
      body: '{}',
    });
    expect((await post('/sig-test/echo', '{}', headers)).status).toBe(200);
    const again = await post('/sig-test/echo', '{}', headers);
    expect(again.status).toBe(401);
    expect(again.headers.get('www-authenticate')).toBe(
      'Rampart-HMAC-SHA256 realm="rampart", error="replayed_nonce"',
    );
    expect((await problem(again)).error).toBe('replayed_nonce');
  });

  it('should refuse timestamps at ±(skew + 1 s) with the server time, and accept ±(skew - 1 s)', async () => {
    for (const delta of [-181_000, 181_000]) {
      const res = await signedPost('/sig-test/echo', '{}', { timestamp: Date.now() + delta });
      expect(res.status).toBe(401);
      const p = await problem(res);
      expect(p.error).toBe('clock_skew');
      expect(Math.abs((p.server_time as number) - Date.now())).toBeLessThan(10_000);
    }
    for (const delta of [-179_000, 179_000])
      expect(
        (await signedPost('/sig-test/echo', '{}', { timestamp: Date.now() + delta })).status,
      ).toBe(200);
  });

  it('should refuse unknown and inactive apps with unknown_app', async () => {
    for (const c of [
      { appId: 'ghost-app', secret: creds.secret },
      { appId: apps.inactive.appId, secret: apps.inactive.secret },
    ]) {
      const res = await signedPost('/sig-test/echo', '{}', c);
      expect(res.status).toBe(401);
      expect((await problem(res)).error).toBe('unknown_app');
    }
  });

  it('should accept every active rotation secret and refuse the retired one', async () => {
    for (const [i, secret] of apps.main.secrets.entries()) {
      expect((await signedPost('/sig-test/echo', '{}', { secret })).status).toBe(200);
      expect(
        (await signedPost('/sig-test/echo', '{}', { secret, keyId: `k${i + 1}` })).status,
      ).toBe(200);
    }
    for (const keyId of [undefined, 'old']) {
      const res = await signedPost('/sig-test/echo', '{}', { secret: apps.main.retired, keyId });
      expect(res.status).toBe(401);
      expect((await problem(res)).error).toBe('bad_signature');
    }
  });

  it('should show the string to sign on bad_signature only to a debug app', async () => {
    const dbg = await signedPost('/sig-test/echo', '{}', {
      appId: apps.debug.appId,
      secret: randomBytes(32).toString('hex'),
      nonce: 'debug-nonce-0123456789',
    });
    const p = await problem(dbg);
    expect(p.error).toBe('bad_signature');
    expect(p.string_to_sign).toMatch(
      /^app-debug\n\d{13}\ndebug-nonce-0123456789\nPOST\n\/sig-test\/echo\n[0-9a-f]{64}$/,
    );
    const plain = await problem(
      await signedPost('/sig-test/echo', '{}', { secret: randomBytes(32).toString('hex') }),
    );
    expect(plain.error).toBe('bad_signature');
    expect(plain.string_to_sign).toBeUndefined();
  });

  it('should refuse a tampered body, path or query with bad_signature', async () => {
    const headers = signRequest({
      ...creds,
      method: 'POST',
      url: `${url}/sig-test/echo?x=1`,
      body: '{"a":1}',
    });
    for (const [path, body] of [
      ['/sig-test/echo?x=1', '{"a":2}'],
      ['/sig-test/echo?x=2', '{"a":1}'],
      ['/sig-test/echo', '{"a":1}'],
    ] as const) {
      const res = await post(path, body, headers);
      expect((await problem(res)).error).toBe('bad_signature');
    }
  });

  it('should refuse malformed headers with malformed_header', async () => {
    const headers = signRequest({
      ...creds,
      method: 'POST',
      url: `${url}/sig-test/echo`,
      body: '{}',
    });
    const res = await post('/sig-test/echo', '{}', {
      ...headers,
      'x-timestamp': String(Math.floor(Date.now() / 1000)),
    });
    expect(res.status).toBe(401);
    expect(await problem(res)).toMatchObject({
      error: 'malformed_header',
      detail: expect.stringContaining('X-Timestamp') as unknown,
    });
  });

  it('should accept an RFC 9421 request signed by the http-message-signatures client and refuse it mutated', async () => {
    const body = '{"hello": "world"}';
    const target = `${url}/sig-test/echo?stream=false`;
    const sign = (
      nonce: string,
    ): Promise<{ method: string; url: string; headers: Record<string, string> }> =>
      httpbis.signMessage(
        {
          key: createSigner(Buffer.from(creds.secret), 'hmac-sha256', `${creds.appId}:k1`),
          fields: ['@method', '@path', '@query', '@authority', 'content-type', 'content-digest'],
          params: ['created', 'keyid', 'alg', 'nonce'],
          paramValues: { nonce },
        },
        {
          method: 'POST',
          url: target,
          headers: {
            'content-type': 'application/json',
            'content-digest': contentDigest(body),
            host: new URL(url).host,
          },
        },
      );
    const ok = await sign(randomBytes(16).toString('base64url'));
    const res = await fetch(target, { method: 'POST', headers: ok.headers, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ app: 'app-e2e', tier: 'pro' });
    const replay = await fetch(target, { method: 'POST', headers: ok.headers, body });
    expect((await problem(replay)).error).toBe('replayed_nonce');

    const tampered = await sign(randomBytes(16).toString('base64url'));
    const bad = await fetch(target, {
      method: 'POST',
      headers: tampered.headers,
      body: body.replace('world', 'w0rld'),
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      'Signature realm="rampart", error="bad_signature"',
    );
    const other = await sign(randomBytes(16).toString('base64url'));
    const moved = await fetch(`${url}/sig-test/echo?stream=true`, {
      method: 'POST',
      headers: other.headers,
      body,
    });
    expect((await problem(moved)).error).toBe('bad_signature');
  });

  it('should accept requests signed by the undici interceptor and by the CLI', async () => {
    const dispatcher = new Agent().compose(signingInterceptor(creds));
    try {
      const r = await undiciRequest(`${url}/sig-test/echo?z=1&a=2`, {
        method: 'POST',
        body: '{"x":1}',
        headers: { 'content-type': 'application/json' },
        dispatcher,
      });
      expect(r.statusCode).toBe(200);
      expect(await r.body.json()).toMatchObject({ app: 'app-e2e' });
    } finally {
      await dispatcher.close();
    }
    const lines: string[] = [];
    const code = runSignCli(
      ['POST', `${url}/sig-test/echo`, 'body.json'],
      { RAMPART_APP_ID: creds.appId, RAMPART_APP_SECRET: creds.secret },
      {
        out: (l) => lines.push(l),
        err: (l) => lines.push(l),
        readFile: () => Buffer.from('{"cli":true}'),
      },
    );
    expect(code).toBe(0);
    const headers = Object.fromEntries(
      lines.filter((l) => /^x-[a-z-]+: /.test(l)).map((l) => l.split(': ') as [string, string]),
    );
    expect(Object.keys(headers)).toEqual(['x-app-id', 'x-timestamp', 'x-nonce', 'x-signature']);
    expect((await post('/sig-test/echo', '{"cli":true}', headers)).status).toBe(200);
  });

  it('should record but not enforce a rejection in shadow mode, and apply a policy change at run time', async () => {
    const chain = app.app.get(LockChain);
    expect((await post('/sig-test/shadow', '{}', {})).status).toBe(200);
    expect(
      chain.stats.snapshot().signature?.['sig-shadow']?.shadow_rejected,
    ).toBeGreaterThanOrEqual(1);
    const before = chain.current();
    const policies = structuredClone(before.policies);
    policies['sig-shadow']!.locks.signature!.mode = 'enforce';
    chain.replace(policies, before.version + 1);
    try {
      expect((await post('/sig-test/shadow', '{}', {})).status).toBe(401);
    } finally {
      chain.replace(before.policies, before.version + 2);
    }
  });

  it('should answer /v1/whoami anonymously unsigned and with the app when signed (shipped policy)', async () => {
    expect(await (await fetch(`${url}/v1/whoami`)).json()).toMatchObject({ app: null });
    const res = await fetch(`${url}/v1/whoami`, {
      headers: signRequest({ ...creds, method: 'GET', url: `${url}/v1/whoami` }),
    });
    expect(await res.json()).toEqual({ app: 'app-e2e', tier: 'pro' });
  });

  it('property: random paths, queries and bodies signed with the SDK verify over real HTTP', async () => {
    const signedFetch = createSignedFetch(creds);
    const segment = fc.webSegment().filter((s) => s !== '' && s !== '.' && s !== '..');
    const cases = fc.sample(
      fc.tuple(
        segment,
        // prototype-named query parameters are refused before any lock (400 malformed_query): not generated here
        fc
          .webQueryParameters()
          .filter(
            (q) => !q.split('&').some((p) => INHERITED.includes(safeDecode(p.split('=')[0]!))),
          ),
        // keys a body may not use (prototype names) are refused before any lock: not generated here
        fc.json({ maxDepth: 4 }).filter((j) => !INHERITED.some((k) => j.includes(`"${k}"`))),
      ),
      60,
    );
    for (const [id, query, body] of cases) {
      const get = await signedFetch(`${url}/sig-test/items/${id}?${query}`);
      expect(get.status, `GET ${id}?${query}`).toBe(200);
      await get.arrayBuffer();
      const res = await signedFetch(`${url}/sig-test/echo?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status, `POST ?${query} ${body}`).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('should never answer 5xx to random signature headers (fuzz over HTTP)', async () => {
    const token = fc.stringMatching(/^[\x20-\x7e]{0,90}$/);
    const headers = fc.record(
      {
        'x-app-id': fc.oneof(token, fc.constant('app-e2e')),
        'x-timestamp': fc.oneof(token, fc.constant(String(Date.now()))),
        'x-nonce': token,
        'x-signature': token,
        'x-key-id': token,
        'signature-input': token,
        signature: token,
        'content-digest': token,
      },
      { requiredKeys: [] },
    );
    const samples = fc.sample(headers, 150);
    for (const h of samples) {
      const res = await fetch(`${url}/sig-test/echo`, {
        method: 'POST',
        headers: {
          ...Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.trim()])),
          'content-type': 'application/json',
        },
        body: '{}',
      });
      expect(res.status, JSON.stringify(h)).toBeLessThan(500);
      await res.arrayBuffer();
    }
  });
});

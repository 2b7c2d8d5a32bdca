/**
 * The HTTP platform under every route, on both adapters: security headers,
 * request ids, problem+json for unknown routes, CORS preflight that never
 * reaches the locks, metrics without personal data, OpenAPI, and a graceful
 * shutdown that drains in-flight requests and closes Redis.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockChain } from '../../src/chain/lock-chain.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const ORIGIN = 'https://app.example.com';

function emptyIndexEnv(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-platform-'));
  const configFile = join(dir, 'rampart.yaml');
  writeFileSync(configFile, 'search:\n  seed: none\n');
  return { CONFIG_FILE: configFile, SEARCH_SQLITE_PATH: join(dir, 'search.sqlite') };
}

describe.each(ADAPTERS)('HTTP platform (%s)', (adapter) => {
  let app: RunningApp;
  /** The codes of the process warnings the app's start emitted (fastify's are FST…). */
  const warnings: string[] = [];

  beforeAll(async () => {
    const onWarning = (w: Error & { code?: string }) => warnings.push(w.code ?? w.name);
    process.on('warning', onWarning);
    try {
      app = await startApp({ HTTP_ADAPTER: adapter, CORS_ORIGINS: ORIGIN, ...emptyIndexEnv() });
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
  });
  afterAll(() => app?.close());

  it('should start without a framework warning (deprecations, error-handler overrides)', () => {
    expect(warnings.filter((code) => code.startsWith('FST'))).toEqual([]);
  });

  it('should send the security headers on answers and on errors', async () => {
    for (const path of ['/v1/time', '/no/such/route']) {
      const res = await fetch(app.url + path);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('should answer an unknown route with a 404 problem+json carrying the request id', async () => {
    const res = await fetch(`${app.url}/no/such/route`, {
      headers: { 'x-request-id': 'client-id-42' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('x-request-id')).toBe('client-id-42');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 404, error: 'not_found', request_id: 'client-id-42' });
  });

  it('should replace a malformed request id with a fresh one', async () => {
    const res = await fetch(`${app.url}/v1/time`, {
      headers: { 'x-request-id': 'bad id with spaces <script>' },
    });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('should answer a CORS preflight for an allowed origin without running any lock', async () => {
    const chain = app.app.get(LockChain);
    const before = JSON.stringify(chain.stats.snapshot());
    for (const path of ['/v1/search?q=paris', '/v1/inference']) {
      const res = await fetch(app.url + path, {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': path.includes('inference') ? 'POST' : 'GET',
          'access-control-request-headers': 'content-type,x-signature',
        },
      });
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/x-signature/i);
    }
    expect(JSON.stringify(chain.stats.snapshot())).toBe(before);
  });

  it('should not allow an origin that is not on the list', async () => {
    const res = await fetch(`${app.url}/v1/time`, {
      headers: { origin: 'https://evil.example.net' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('should expose metrics by route template, never the query text or the client address', async () => {
    await fetch(`${app.url}/v1/search?q=averyprivatequeryword`);
    await fetch(`${app.url}/v1/search/items/some-private-id-123`);
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toMatch(
      /rampart_http_request_duration_seconds_count\{method="GET",route="\/v1\/search",status="200"\}/,
    );
    expect(text).toMatch(/route="\/v1\/search\/items\/:id"/);
    expect(text).toMatch(/rampart_process_cpu_user_seconds_total/);
    expect(text).not.toContain('averyprivatequeryword');
    expect(text).not.toContain('some-private-id-123');
    expect(text).not.toContain('127.0.0.1');
  });

  it('should publish the OpenAPI document with the protected APIs', async () => {
    const doc = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/search',
        '/v1/search/items/{id}',
        '/v1/inference',
        '/health/ready',
      ]),
    );
    expect((await fetch(`${app.url}/docs`)).status).toBe(200);
  });
});

describe.each(ADAPTERS)('graceful shutdown (%s)', (adapter) => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake?.close());

  it.skipIf(!redisUrl())(
    'should finish the request in flight, then refuse new connections and close Redis',
    async () => {
      const app = await startApp(
        {
          HTTP_ADAPTER: adapter,
          INFERENCE_UPSTREAM_URL: fake.url,
          REDIS_URL: redisUrl(),
          RAMPART_ENV: uniqueEnv('shut'),
          REDIS_COMMAND_TIMEOUT_MS: '1000',
          ...emptyIndexEnv(),
        },
        {
          config: (c) => {
            const inference = structuredClone(c.policies.inference!);
            for (const slice of Object.values(inference.locks)) slice.mode = 'off';
            return { ...c, policies: { ...c.policies, inference } };
          },
        },
      );
      const redis = app.app.get(RedisService);
      expect(redis.ready).toBe(true);
      fake.setLatency(400);
      const inFlight = fetch(`${app.url}/v1/inference`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'drain me' }],
        }),
      });
      const deadline = Date.now() + 5_000;
      while (fake.inFlight === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(fake.inFlight).toBe(1);
      const closing = app.close();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(((await res.json()) as { object: string }).object).toBe('chat.completion');
      await closing;
      await expect(fetch(`${app.url}/v1/time`)).rejects.toThrow();
      // QUIT is answered before the socket closes; the client then ends.
      const ended = Date.now() + 2_000;
      while (redis.client?.status !== 'end' && Date.now() < ended)
        await new Promise((r) => setTimeout(r, 10));
      expect(redis.client?.status).toBe('end');
    },
  );
});

/**
 * Security sweep, over HTTP: mutated signed requests against the shipped
 * signed routes (inference: signature required; search: optional) with the
 * whole chain, on both adapters. None may be accepted (2xx) and none may
 * get a 5xx. The 100k in-process run is
 * src/locks/signature/verify-request.fuzz.spec.ts; this sample adds the
 * HTTP layers, the nonce store and the adapters.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { signRequest } from '../../src/sdk/index.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { mutate, prng, type WireRequest } from '../support/signature-mutator.js';
import { testApps } from '../support/signature-routes.js';

const PER_ADAPTER = Number(process.env.FUZZ_HTTP_RUNS ?? 1_000);
const CONCURRENCY = 16;

/** The shipped policies with the rate limit off: the fuzz must meet the signature lock, not a 429. */
function noRateLimit(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  for (const p of Object.values(policies)) p.locks.rateLimit = { mode: 'off' };
  return { ...c, policies };
}

const BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'hello' }],
  max_tokens: 8,
});

describe.each(ADAPTERS)('signature fuzz over HTTP (%s)', (adapter) => {
  const apps = testApps();
  const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  const dispatcher = new Agent({ connections: CONCURRENCY });
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter, APPS_FILE: apps.file }, { config: noRateLimit });
  });
  afterAll(async () => {
    await app?.close();
    await dispatcher.close();
  });

  function fresh(i: number): WireRequest {
    const [method, target, body] =
      i % 2 === 0
        ? ['POST', '/v1/chat/completions', BODY]
        : ['GET', `/v1/search?q=paris&limit=${1 + (i % 5)}`, ''];
    const headers: Record<string, string> = {
      ...signRequest({ ...creds, method, url: target, body: body || undefined }),
    };
    if (body) headers['content-type'] = 'application/json';
    return { method, target, headers, body: Buffer.from(body) };
  }

  async function send(r: WireRequest): Promise<number> {
    const res = await request(`${app.url}${r.target}`, {
      method: r.method as 'GET',
      headers: r.headers,
      body: r.body.length > 0 || r.method !== 'GET' ? r.body : undefined,
      dispatcher,
    });
    await res.body.dump();
    return res.statusCode;
  }

  it(`should accept none of ${PER_ADAPTER} mutated signed requests and answer none with a 5xx`, async () => {
    const rnd = prng(0xf022 + adapter.length);
    const statuses = new Map<number, number>();
    const bad: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < PER_ADAPTER; i = next++) {
          const { req, kind } = mutate(fresh(i), rnd, [apps.debug.appId, 'no-such-app']);
          const status = await send(req);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if ((status >= 200 && status < 300) || status >= 500)
            bad.push(`${status} after ${kind}: ${req.method} ${req.target}`);
        }
      }),
    );
    expect(bad.slice(0, 10)).toEqual([]);
    expect(statuses.get(401)).toBeGreaterThan(PER_ADAPTER / 2);
  });

  it('should still accept unmutated signed requests (the lock is not simply refusing everything)', async () => {
    for (let i = 0; i < 4; i++) expect(await send(fresh(i))).toBe(200);
  });
});

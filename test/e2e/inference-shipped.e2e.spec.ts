import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { LOCAL_MODEL_NAME } from '../../src/inference/local/local-model.backend.js';
import { signRequest } from '../../src/sdk/index.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FAKE_MODEL, FakeOpenAI, sseData, startFakeOpenAI } from '../support/fake-openai.js';
import { testApps } from '../support/signature-routes.js';

/** Shipped policies with the interceptor-stage locks off (they are tested on their own). */
function guardsOnly(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  for (const p of Object.values(policies)) {
    p.locks.cacheShield = { mode: 'off' };
    p.locks.circuitBreaker = { mode: 'off' };
  }
  return { ...c, policies };
}

/**
 * POST /v1/inference behind the real guard-stage locks with the shipped
 * `inference` policy: signature required, rate limit charged by max_tokens.
 */
describe.each(ADAPTERS)(
  'POST /v1/inference with the real signature and rate-limit locks (%s)',
  (adapter) => {
    const apps = testApps();
    const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
    let fake: FakeOpenAI;
    let proxy: RunningApp;
    let local: RunningApp;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      proxy = await startApp(
        { HTTP_ADAPTER: adapter, APPS_FILE: apps.file, INFERENCE_UPSTREAM_URL: fake.url },
        { search: 'empty', config: guardsOnly },
      );
      local = await startApp(
        { HTTP_ADAPTER: adapter, APPS_FILE: apps.file },
        { search: 'empty', config: guardsOnly },
      );
    });
    afterAll(async () => {
      await proxy?.close();
      await local?.close();
      await fake?.close();
    });

    const body = (extra: Record<string, unknown> = {}): string =>
      JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'What a lovely morning in Lisbon!' }],
        ...extra,
      });
    const signedPost = (app: RunningApp, text: string): Promise<Response> =>
      fetch(`${app.url}/v1/inference`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signRequest({ ...creds, method: 'POST', url: `${app.url}/v1/inference`, body: text }),
        },
        body: text,
      });

    it('should refuse an unsigned call before it reaches the upstream', async () => {
      const before = fake.requests;
      const res = await fetch(`${proxy.url}/v1/inference`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('missing_header');
      expect(fake.requests).toBe(before);
    });

    it('should answer a signed call from the local demo model', async () => {
      const res = await signedPost(local, body());
      expect(res.status).toBe(200);
      const c = (await res.json()) as {
        model: string;
        choices: { message: { content: string } }[];
      };
      expect(c.model).toBe(LOCAL_MODEL_NAME);
      expect(c.choices[0]!.message.content).toContain('tone is positive');
    });

    it('should relay a signed stream from the upstream with the rate-limit headers the guard set', async () => {
      const res = await signedPost(proxy, body({ stream: true, max_tokens: 300 }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('ratelimit')).toMatch(/per-app";r=\d+/);
      const events: string[] = [];
      for await (const data of sseData(res)) events.push(data);
      expect(events.at(-1)).toBe('[DONE]');
      expect((JSON.parse(events[0]!) as { model: string }).model).toBe(FAKE_MODEL);
    });
  },
);

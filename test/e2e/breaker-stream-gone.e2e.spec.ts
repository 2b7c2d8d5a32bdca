/**
 * A stream that ends early tells the breaker nothing (docs/circuit-breaker.md#streams-and-slow-readers), over HTTP
 * on both adapters against the fake upstream: a hostile app B opens streams whose upstream never finishes, and
 * either hangs up or is cut at INFERENCE_STREAM_MAX_DURATION_MS, each after more than the slow-call threshold. Those
 * calls are counted as a caller gone: they open no slow-call rule and give the adaptive limit no latency sample, so
 * they cannot lower every app's limit. The same number of app A's genuinely slow streams, completed, do both.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { testApps } from '../support/signature-routes.js';

const SLOW_MS = 300;
const MAX_DURATION_MS = 1_500;
const CALLS = 4;

/** The shipped inference policy with a short slow-call rule, a fresh adaptive limit, no rate limit or shield. */
function withSlowCallRule(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const circuitBreaker: CircuitBreakerSlice = {
    ...(inference.locks.circuitBreaker as CircuitBreakerSlice),
    slowCallMs: SLOW_MS,
    slowCallRatio: 0.5,
    minimumVolume: CALLS,
    adaptive: { minLimit: 1, initialLimit: 16, windowMs: 10, windowSamples: 1 },
    reclaimAfterMs: 0,
  };
  const off = { mode: 'off' as const };
  const locks = { ...inference.locks, rateLimit: off, cacheShield: off, circuitBreaker };
  return { ...c, policies: { ...c.policies, inference: { ...inference, locks } } };
}

interface BreakerView {
  name: string;
  phase: string;
  reason?: string;
  stats: { inFlight: number; slowCalls: number };
  adaptive?: { limit: number; sampleRttMs?: number };
}

describe.each(ADAPTERS)('streams that end early and the breaker (%s)', (adapter) => {
  const apps = testApps();
  const [A, B] = [apps.main, apps.debug];
  const secrets = { [A.appId]: A.secrets[0]!, [B.appId]: B.secret };
  let fake: FakeOpenAI;
  let app: RunningApp;
  const open: ClientRequest[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        INFERENCE_UPSTREAM_URL: fake.url,
        APPS_FILE: apps.file,
        ADMIN_TOKEN,
        INFERENCE_STREAM_MAX_DURATION_MS: String(MAX_DURATION_MS),
      },
      { search: 'empty', config: withSlowCallRule },
    );
  });
  afterAll(async () => {
    for (const r of open) r.destroy();
    await app?.close();
    await fake?.close();
  });

  const view = async (): Promise<BreakerView> =>
    (
      await new AdminClient(app).get<{ breakers: BreakerView[] }>('/admin/breakers')
    ).body.breakers.find((b) => b.name === 'inference')!;

  /** A signed streamed call of `appId`; resolves with its response once the headers came, the body flowing. */
  const stream = (appId: string): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const url = `${app.url}/v1/chat/completions`;
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'Tell me something.' }],
      });
      const headers = {
        'content-type': 'application/json',
        ...signRequest({ appId, secret: secrets[appId]!, method: 'POST', url, body }),
      };
      const req = httpRequest(url, { method: 'POST', headers, agent: false });
      open.push(req);
      req.on('response', resolve);
      req.on('error', reject);
      req.end(body);
    });
  const readAll = async (res: IncomingMessage): Promise<string> => {
    let text = '';
    for await (const chunk of res) text += String(chunk);
    return text;
  };
  const metrics = async (): Promise<string> => (await fetch(`${app.url}/metrics`)).text();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it(
    "should count B's streams that hung up or were cut as callers gone, and A's slow completed streams as slow",
    { timeout: 60_000 },
    async () => {
      // B: streams whose upstream stops after its first chunk and never finishes.
      fake.pauseStreams();
      const hangUps = await Promise.all([0, 1].map(() => stream(B.appId)));
      const cuts = await Promise.all([0, 1].map(() => stream(B.appId)));
      const cutText = cuts.map(readAll);
      expect([...hangUps, ...cuts].map((r) => r.statusCode)).toEqual(Array(CALLS).fill(200));
      await sleep(2 * SLOW_MS); // past the slow-call threshold: were they counted, they would be slow
      for (const r of hangUps) r.destroy();
      // The cut ones end at the max duration with an error event, as before.
      for (const t of await Promise.all(cutText)) expect(t).toContain('upstream_timeout');
      await expect.poll(async () => (await view()).stats.inFlight, { timeout: 20_000 }).toBe(0);
      const after = await view();
      expect(after).toMatchObject({ phase: 'closed', stats: { slowCalls: 0 } });
      expect(after.adaptive).toMatchObject({ limit: 16 });
      expect(after.adaptive?.sampleRttMs).toBeUndefined();
      expect(await metrics()).toMatch(
        /rampart_breaker_call_duration_seconds_count\{backend="inference",outcome="client_gone",probe="false"\} 4\b/,
      );
      // A: the same number of streams, genuinely slow (the upstream waits past the threshold), read to their end.
      fake.reset();
      fake.setLatency(SLOW_MS + 200);
      // One after the other: each closes a window of the adaptive limit (a sample).
      for (let i = 0; i < CALLS; i++)
        expect(await readAll(await stream(A.appId))).toContain('[DONE]');
      await expect.poll(async () => (await view()).phase, { timeout: 10_000 }).toBe('open');
      const tripped = await view();
      expect(tripped).toMatchObject({ reason: 'slow_calls' });
      expect(tripped.stats.slowCalls).toBeGreaterThanOrEqual(2);
      expect(tripped.adaptive?.sampleRttMs).toBeGreaterThanOrEqual(SLOW_MS);
      fake.reset();
    },
  );
});

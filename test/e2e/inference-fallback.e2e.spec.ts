/**
 * Upstreams per model alias (docs/inference.md#upstreams-per-model), over HTTP
 * on both adapters, against two real fake OpenAI upstreams on loopback (A and
 * B) and the real circuit-breaker lock (one breaker per upstream, derived
 * policies `inference-upstream-<name>`). Aliases are set in a real CONFIG_FILE.
 * Each alias has its own upstream names (own breakers, own 429 skips), so the
 * tests do not share state; the fakes' switches are reset after each test.
 * The two adapters' cases run at the same time (most of their time is a Retry-After running): each has its
 * own fakes and app and shares nothing with the other; within a case the tests run one after the other.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, sseData, startFakeOpenAI } from '../support/fake-openai.js';
import { addSecret } from '../support/secret-scan.js';
import OpenAI from 'openai';

const KEY_A = 'sk-fallback-a-0123456789abcdef';
const off = { mode: 'off' as const };

/** Only lock 4 on the inference routes (no signing in these tests). */
function breakerOnly(c: RampartConfig): RampartConfig {
  const p = { ...c.policies };
  for (const name of ['inference', 'models'])
    p[name] = {
      ...p[name]!,
      locks: { ...p[name]!.locks, signature: off, rateLimit: off, cacheShield: off },
    };
  return { ...c, policies: p };
}

/** Two upstreams per alias: `<x>a` on A (priority 0, tried first) and `<x>b` on B (priority 1). */
function pair(x: string, a: string, b: string, extraA: Record<string, unknown> = {}): unknown {
  return {
    upstreams: [
      { name: `${x}a`, url: a, model: 'model-a', priority: 0, ...extraA },
      { name: `${x}b`, url: b, model: 'model-b', priority: 1 },
    ],
  };
}

function configFile(a: string, b: string): string {
  const models = {
    'fb-429': pair('r', a, b, { apiKeyEnv: 'TEST_FALLBACK_KEY_A' }),
    'fb-5xx': pair('f', a, b),
    'fb-stream': pair('s', a, b),
    'fb-strict': pair('t', a, b),
    'fb-sdk': pair('d', a, b),
    'fb-hang': pair('h', a, b, { timeoutMs: 300 }),
    'fb-open': pair('o', a, b),
    'fb-busy': pair('k', a, b, { capacity: 1 }),
    'all-429': {
      upstreams: [
        { name: 'xa', url: a, model: 'model-a' },
        { name: 'xb', url: b, model: 'model-b' },
      ],
    },
    weighted: {
      upstreams: [
        { name: 'wa', url: a, model: 'model-a', weight: 3 },
        { name: 'wb', url: b, model: 'model-b', weight: 1 },
      ],
    },
  };
  const dir = mkdtempSync(join(tmpdir(), 'rampart-fallback-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ inference: { models } }));
  return file;
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function chat(app: RunningApp, model: string, extra: object = {}): Promise<Answer> {
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], ...extra }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function streamed(
  app: RunningApp,
  model: string,
): Promise<{ status: number; events: string[] }> {
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  const events: string[] = [];
  if (res.status === 200) for await (const e of sseData(res)) events.push(e);
  else await res.text();
  return { status: res.status, events };
}

async function fallbacks(
  app: RunningApp,
  model: string,
  upstream: string,
  reason: string,
): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const label = `rampart_inference_fallbacks_total{model="${model}",upstream="${upstream}",reason="${reason}"}`;
  const line = text.split('\n').find((l) => l.startsWith(label));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** Streamed calls finished (the service's duration histogram, every outcome): the router is done with them. */
async function streamsDone(app: RunningApp): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return text
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('rampart_inference_duration_seconds_count{') && l.includes('mode="stream"'),
    )
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

beforeAll(() => {
  process.env.TEST_FALLBACK_KEY_A = KEY_A;
  // The suite's secret scan fails the run if the key shows in a log line or an answer.
  addSecret(KEY_A, 'upstream ra API key');
});
afterAll(() => {
  delete process.env.TEST_FALLBACK_KEY_A;
});

describe.each(ADAPTERS)('inference upstreams per model (%s)', { concurrent: true }, (adapter) => {
  let A: FakeOpenAI;
  let B: FakeOpenAI;
  let app: RunningApp;

  beforeAll(async () => {
    A = await startFakeOpenAI();
    B = await startFakeOpenAI();
    const env = { HTTP_ADAPTER: adapter, ADMIN_TOKEN, CONFIG_FILE: configFile(A.url, B.url) };
    app = await startApp(env, { search: 'empty', config: breakerOnly });
  });
  afterEach(() => {
    A.reset();
    B.reset();
  });
  afterAll(async () => {
    await app?.close();
    await A?.close();
    await B?.close();
  });

  it.sequential(
    'should move a call on from an upstream answering 429 and skip it until its Retry-After passed',
    { timeout: 90_000 },
    async () => {
      // 10 s: far longer than the two calls below take on a loaded machine (3 s was not), so they fall inside it.
      A.setStatus(429);
      A.setRetryAfter('10');
      const [a0, b0] = [A.requests, B.requests];
      const first = await chat(app, 'fb-429');
      expect(first.status).toBe(200);
      expect([A.requests - a0, B.requests - b0]).toEqual([1, 1]);
      expect(A.lastRequest?.body?.model).toBe('model-a');
      expect(A.lastRequest?.headers.authorization).toBe(`Bearer ${KEY_A}`);
      expect(B.lastRequest?.body?.model).toBe('model-b');
      A.reset(); // A would answer now, but asked to be left alone for 10 s
      for (let i = 0; i < 2; i++) expect((await chat(app, 'fb-429')).status).toBe(200);
      expect([A.requests - a0, B.requests - b0]).toEqual([1, 3]);
      expect(await fallbacks(app, 'fb-429', 'ra', 'rate_limited')).toBe(1);
      expect(await fallbacks(app, 'fb-429', 'ra', 'cooling_down')).toBe(2);
      // Once the Retry-After has passed, A (priority 0) takes the calls again.
      await eventually(
        () => chat(app, 'fb-429'),
        () => A.requests - a0 === 2,
        60_000,
        500,
      );
    },
  );

  it.sequential(
    'should honour a strict 429 window: move on, never call the upstream inside its Retry-After, and come back after (JSON, stream, the openai SDK)',
    async () => {
      // The window is the test's: open until it is closed below, whatever the machine's speed. Rampart's side is
      // checked by counts (every call passed A once: asked and refused, or skipped) and by the order of A's log.
      const RETRY_AFTER_S = 2;
      const t0 = performance.now();
      A.openRateLimitWindow(RETRY_AFTER_S); // every call to A answers 429 (Retry-After: 2), counted by A
      const [a0, b0, limited0] = [A.requests, B.requests, A.rateLimited];
      const [rl0, cd0] = [
        await fallbacks(app, 'fb-strict', 'ta', 'rate_limited'),
        await fallbacks(app, 'fb-strict', 'ta', 'cooling_down'),
      ];
      expect((await chat(app, 'fb-strict')).status).toBe(200);
      const s = await streamed(app, 'fb-strict');
      expect(s.status).toBe(200);
      expect(s.events.at(-1)).toBe('[DONE]');
      const sdk = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: 'unused', maxRetries: 0 });
      const answer = await sdk.chat.completions.create({
        model: 'fb-strict',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      expect(answer.choices[0]?.message.content).toBeTruthy();
      let words = '';
      const stream = await sdk.chat.completions.create({
        model: 'fb-strict',
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      for await (const chunk of stream) words += chunk.choices[0]?.delta?.content ?? '';
      expect(words).toBe('This is a fake answer from the upstream');
      // All four were answered by B; each passed A once: asked (429, a fallback `rate_limited`) or skipped while its
      // Retry-After ran (`cooling_down`). The first asked A; more ask it only on a machine slow enough to outlast 2 s.
      expect(B.requests - b0).toBe(4);
      const refused = A.rateLimited - limited0;
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(A.requests - a0).toBe(refused);
      expect((await fallbacks(app, 'fb-strict', 'ta', 'rate_limited')) - rl0).toBe(refused);
      expect((await fallbacks(app, 'fb-strict', 'ta', 'cooling_down')) - cd0).toBe(4 - refused);
      // The window closes; A (priority 0) takes the calls again once Rampart's Retry-After has run.
      A.closeRateLimitWindow();
      await eventually(
        () => chat(app, 'fb-strict'),
        (r) => r.status === 200 && A.requests - a0 > refused,
        15_000,
        100,
      );
      expect(A.rateLimited - limited0).toBe(refused);
      // Never inside a Retry-After: no call reached A sooner than 2 s after A refused one (Rampart's skip starts when
      // the 429 reaches it, later than the fake's log says, so this holds on a machine of any speed).
      const log = A.chatLog.filter((e) => e.at >= t0);
      for (const [i, l] of log.entries())
        if (l.limited)
          for (const later of log.slice(i + 1))
            expect(later.at - l.at).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
    },
  );

  it.sequential(
    'should answer 429 upstream_rate_limited with Retry-After when every upstream is rate limited',
    async () => {
      A.setStatus(429);
      B.setStatus(429);
      A.setRetryAfter('7');
      B.setRetryAfter('9');
      const r = await chat(app, 'all-429');
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ code: 'upstream_rate_limited', status: 429 });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(6);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(7);
      const [a0, b0] = [A.requests, B.requests];
      const again = await chat(app, 'all-429');
      expect(again.body).toMatchObject({ code: 'upstream_rate_limited' });
      expect([A.requests - a0, B.requests - b0]).toEqual([0, 0]);
    },
  );

  it.sequential(
    'should fall over to the next upstream on a 5xx before the first byte (JSON and stream)',
    async () => {
      A.setStatus(500);
      const [a0, b0] = [A.requests, B.requests];
      const json = await chat(app, 'fb-5xx');
      expect(json.status).toBe(200);
      expect(json.body.object).toBe('chat.completion');
      const s = await streamed(app, 'fb-5xx');
      expect(s.status).toBe(200);
      expect(s.events.at(-1)).toBe('[DONE]');
      expect(s.events.some((e) => e.includes('"error"'))).toBe(false);
      expect([A.requests - a0, B.requests - b0]).toEqual([2, 2]);
      expect(await fallbacks(app, 'fb-5xx', 'fa', 'failed')).toBe(2);
    },
  );

  it.sequential('should never run a stream twice once its first byte was relayed', async () => {
    A.setFailAfterFirstChunk(true);
    const [a0, b0, done] = [A.requests, B.requests, await streamsDone(app)];
    const s = await streamed(app, 'fb-stream');
    // The client has its answer; wait until the call is over on our side too (a retry would happen before).
    await eventually(
      () => streamsDone(app),
      (n) => n === done + 1,
    );
    expect(s.status).toBe(200);
    expect(s.events.some((e) => e.includes('"content":"This"'))).toBe(true);
    expect(s.events.some((e) => e.includes('"error"'))).toBe(true);
    expect(s.events).not.toContain('[DONE]');
    expect([A.requests - a0, B.requests - b0]).toEqual([1, 0]);
  });

  it.sequential(
    'should never run a stream twice after it started, with the openai SDK as the client (its retries on)',
    async () => {
      A.setFailAfterFirstChunk(true);
      const [a0, b0, done] = [A.requests, B.requests, await streamsDone(app)];
      const sdk = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: 'unused', maxRetries: 2 });
      const stream = await sdk.chat.completions.create({
        model: 'fb-sdk',
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      let words = '';
      const err = await (async () => {
        for await (const chunk of stream) words += chunk.choices[0]?.delta?.content ?? '';
      })().catch((e: unknown) => e);
      // The SDK raises the error event Rampart ends the stream with; the first word came, nothing was replayed.
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(words).toBe('This');
      await eventually(
        () => streamsDone(app),
        (n) => n === done + 1,
      );
      expect([A.requests - a0, B.requests - b0]).toEqual([1, 0]);
    },
  );

  it.sequential('should fall over when an upstream hangs past its timeout', async () => {
    A.setHang(true);
    const b0 = B.requests;
    const r = await chat(app, 'fb-hang');
    expect(r.status).toBe(200);
    expect(B.requests - b0).toBe(1);
    expect(await fallbacks(app, 'fb-hang', 'ha', 'timeout')).toBe(1);
  });

  it.sequential(
    "should skip an upstream whose breaker is open, and answer 503 circuit_open when every one's is",
    async () => {
      const admin = new AdminClient(app);
      const force = (p: string): Promise<unknown> =>
        admin.call('PUT', `/admin/breakers/inference-upstream-${p}/force`, { state: 'open' });
      expect(((await force('oa')) as { status: number }).status).toBe(200);
      const [a0, b0] = [A.requests, B.requests];
      expect((await chat(app, 'fb-open')).status).toBe(200);
      expect([A.requests - a0, B.requests - b0]).toEqual([0, 1]);
      expect(await fallbacks(app, 'fb-open', 'oa', 'circuit_open')).toBe(1);
      await force('ob');
      const r = await chat(app, 'fb-open');
      // Refused by the upstreams' breakers: answered as such, not as a failure of the route's breaker.
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ code: 'circuit_open' });
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      expect([A.requests - a0, B.requests - b0]).toEqual([0, 1]);
    },
  );

  it.sequential(
    "should move on from an upstream whose bulkhead is full (the upstream's own capacity)",
    async () => {
      A.pauseStreams();
      const [a0, b0] = [A.requests, B.requests];
      const first = await fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'fb-busy',
          stream: true,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      });
      expect(first.status).toBe(200); // holding A's one slot, paused after its first word
      const second = await chat(app, 'fb-busy');
      expect(second.status).toBe(200);
      expect([A.requests - a0, B.requests - b0]).toEqual([1, 1]);
      expect(await fallbacks(app, 'fb-busy', 'ka', 'busy')).toBe(1);
      A.resumeStreams();
      const events: string[] = [];
      for await (const e of sseData(first)) events.push(e);
      expect(events.at(-1)).toBe('[DONE]');
    },
  );

  it.sequential('should share the calls out by weight', async () => {
    const [a0, b0] = [A.requests, B.requests];
    for (let i = 0; i < 12; i++)
      await Promise.all(Array.from({ length: 10 }, () => chat(app, 'weighted')));
    const [a, b] = [A.requests - a0, B.requests - b0];
    expect(a + b).toBe(120);
    // Weights 3:1 → 90 expected on A (standard deviation 4.7); the bounds are 5 of them.
    expect(a).toBeGreaterThan(66);
    expect(a).toBeLessThan(114);
  });

  it.sequential(
    'should list the aliases in GET /v1/models and never route a call to an upstream by its own names',
    async () => {
      const res = await fetch(`${app.url}/v1/models`);
      const list = (await res.json()) as { object: string; data: { id: string; object: string }[] };
      expect(list.object).toBe('list');
      expect(list.data.map((m) => m.id).sort()).toEqual(
        [
          'all-429',
          'fb-429',
          'fb-5xx',
          'fb-busy',
          'fb-hang',
          'fb-open',
          'fb-sdk',
          'fb-stream',
          'fb-strict',
          'weighted',
        ].sort(),
      );
      expect(JSON.stringify(list)).not.toMatch(/model-a|model-b|upstream|127\.0\.0\.1/);
      const [a0, b0] = [A.requests, B.requests];
      for (const model of ['model-a', 'wa', 'inference-upstream-wa'])
        expect((await chat(app, model)).status).toBe(200); // the demo model: no alias, no upstream
      expect([A.requests - a0, B.requests - b0]).toEqual([0, 0]);
    },
  );
});

/**
 * A fair wait at saturation (docs/circuit-breaker.md#bounded-wait), over HTTP on both adapters, against the
 * fake OpenAI upstream (test/support/fake-openai.ts) with one slot: calls that find it taken wait in one lane
 * per app, served round robin, so app B's few calls go before app A's backlog drains; A past
 * `maxWaitingPerApp` gets 503 `backend_busy` with Retry-After and its place while B still gets in; a waiting
 * stream gets `: queued position=N` as its first event. Order is asserted by who finished when, never by time.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { testApps } from '../support/signature-routes.js';

const BREAKER: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'inference',
  timeoutMs: 60_000,
  volumeThreshold: 1_000,
  resetJitter: 0,
  capacity: 1,
  fairShare: false,
  shareWeights: {},
  adaptive: false,
  maxWaitMs: 30_000,
  maxWaiting: 6,
  maxWaitingPerApp: 4,
};

/** The shipped inference policy (signature on: the app is the fairness key) with only the breaker besides. */
function withBreaker(breaker: CircuitBreakerSlice) {
  return (c: RampartConfig): RampartConfig => {
    const inference = c.policies.inference!;
    const off = { mode: 'off' as const };
    const locks = { ...inference.locks, rateLimit: off, cacheShield: off, circuitBreaker: breaker };
    return { ...c, policies: { ...c.policies, inference: { ...inference, locks } } };
  };
}

describe.each(ADAPTERS)('fair wait for a backend slot (%s)', (adapter) => {
  const apps = testApps();
  const A = { appId: apps.debug.appId, secret: apps.debug.secret };
  const B = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  let fake: FakeOpenAI;
  let app: RunningApp;
  const started: RunningApp[] = [];
  const start = async (breaker: CircuitBreakerSlice): Promise<RunningApp> => {
    const env = { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, APPS_FILE: apps.file };
    const a = await startApp(env, { search: 'empty', config: withBreaker(breaker) });
    started.push(a);
    return a;
  };

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await start(BREAKER);
  });
  afterAll(async () => {
    for (const a of started) await a.close();
    await fake?.close();
  });

  function signed(who: { appId: string; secret: string }, stream = false) {
    const url = `${app.url}/v1/inference`;
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      stream,
      max_tokens: 2,
      messages: [{ role: 'user', content: 'wait your turn' }],
    });
    const headers = signRequest({ ...who, method: 'POST', url, body });
    return { url, body, headers: { 'content-type': 'application/json', ...headers } };
  }

  /** A signed call; `gone` hangs it up. */
  async function infer(who: { appId: string; secret: string }, gone?: AbortSignal) {
    const r = signed(who);
    const res = await fetch(r.url, {
      method: 'POST',
      headers: r.headers,
      body: r.body,
      signal: gone,
    });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
  }

  /** Holds the only slot with a call that never ends until `release()` hangs it up. */
  async function holdSlot(): Promise<{ release: () => void }> {
    fake.setLatency(600_000);
    const gone = new AbortController();
    const held = infer(A, gone.signal).catch(() => undefined);
    await expect.poll(() => fake.inFlight, { timeout: 10_000 }).toBe(1);
    fake.setLatency(150); // calls after the holder are quick
    return { release: () => (gone.abort(), void held) };
  }

  /** A signed streaming call over node:http: the response as soon as its headers arrive. */
  function openStream(who: typeof A): Promise<IncomingMessage> {
    const r = signed(who, true);
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(r.url, { method: 'POST', agent: false, headers: r.headers });
      req.on('response', resolve);
      req.on('error', reject);
      req.end(r.body);
    });
  }

  const waiting = async (): Promise<number> => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('rampart_breaker_waiting{backend="inference"} '));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
  };

  it("should serve app B's few calls before app A's backlog drains, and refuse A past its lane with 503 backend_busy", async () => {
    const slot = await holdSlot();
    const done: string[] = [];
    const call = (who: typeof A, tag: string) => infer(who).then((r) => (done.push(tag), r));
    // A fills its lane (maxWaitingPerApp 4) ...
    const aQueued = [1, 2, 3, 4].map((i) => call(A, `a${i}`));
    await expect.poll(waiting, { timeout: 10_000 }).toBe(4);
    // ... and its excess is refused at once, with Retry-After and where it would have stood.
    const refused = await infer(A);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('30');
    expect(refused.body).toMatchObject({
      error: 'backend_busy',
      state: 'busy',
      queue: { why: 'app_full', position: 5, length: 4 },
    });
    // Hostile A cannot take B's room: B's calls still queue (6 of maxWaiting 6).
    const bQueued = [1, 2].map((i) => call(B, `b${i}`));
    await expect.poll(waiting, { timeout: 10_000 }).toBe(6);
    const full = await infer(A);
    expect(full.body).toMatchObject({ error: 'backend_busy', queue: { why: 'full', length: 6 } });
    slot.release();
    const all = await Promise.all([...aQueued, ...bQueued]);
    expect(all.map((r) => r.status)).toEqual(Array(6).fill(200));
    // One slot: they finished in the order they were served, round robin between the two lanes.
    expect(done).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(
      /rampart_breaker_wait_seconds_count\{backend="inference",outcome="slot"\} \d+/,
    );
  });

  it('should send a waiting stream `: queued position=N` first, then its answer once it has a slot', async () => {
    const slot = await holdSlot();
    const res = await openStream(B);
    // Headers and the first event come while the call still waits (the only slot is held).
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    const chunks: string[] = [];
    const first = await new Promise<string>((resolve) =>
      res.once('data', (c: Buffer) => resolve(c.toString())),
    );
    chunks.push(first);
    expect(first).toMatch(/^: queued position=1 length=1\n\n/);
    expect(await waiting()).toBe(1);
    slot.release();
    for await (const c of res) chunks.push((c as Buffer).toString());
    const text = chunks.join('');
    expect(text).toContain('data: {');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('should end a waiting stream whose maxWaitMs ran out with one backend_busy error event after `: queued`', async () => {
    const short = await start({ ...BREAKER, maxWaitMs: 300 });
    const main = app;
    app = short; // holdSlot, openStream and waiting() talk to this app
    try {
      const slot = await holdSlot();
      const res = await openStream(B);
      expect(res.statusCode).toBe(200);
      let text = '';
      for await (const c of res) text += (c as Buffer).toString();
      const [first, second] = text.split('\n\n');
      expect(first).toBe(': queued position=1 length=1');
      expect(JSON.parse(second!.replace(/^data: /, ''))).toMatchObject({
        error: { code: 'backend_busy' },
      });
      expect(text).not.toContain('[DONE]');
      slot.release();
    } finally {
      app = main;
    }
  });
});

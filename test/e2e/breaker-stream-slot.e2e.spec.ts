/**
 * A streamed answer's breaker slot measures the backend's own work (docs/circuit-breaker.md#streams-and-slow-readers),
 * over HTTP on both adapters against a real OpenAI-compatible upstream (test/support/fake-openai.ts): once the
 * upstream has sent its last chunk, a client that has not read the answer yet no longer holds the backend's slot
 * (another call is admitted), the adaptive limit's latency sample is taken then (not when the reader finishes), and
 * a client that goes away mid-stream frees its slot at once.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';

/** 8 words of 2 MiB: more than the sockets between upstream, Rampart and a client that does not read can hold. */
const PADDING = 2 * 1024 * 1024;

const BREAKER: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'inference',
  timeoutMs: 30_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 1_000,
  rollingCountTimeoutMs: 60_000,
  rollingCountBuckets: 6,
  resetTimeoutMs: 60_000,
  resetJitter: 0,
  capacity: 1,
  maxWaitMs: 0, // a taken slot answers 503 at once here (inference ships a wait)
  fairShare: false,
  adaptive: false,
  slowCallMs: 0,
};

function withBreaker(slice: CircuitBreakerSlice) {
  return (c: RampartConfig): RampartConfig => {
    const off = { mode: 'off' as const };
    const inference = c.policies.inference!;
    const locks = { signature: off, rateLimit: off, cacheShield: off, circuitBreaker: slice };
    return { ...c, policies: { ...c.policies, inference: { ...inference, locks } } };
  };
}

interface BreakerView {
  name: string;
  stats: { inFlight: number };
  adaptive?: { limit: number; sampleRttMs?: number };
}

const chat = (stream: boolean): string =>
  JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] });

/** A streaming call over node:http whose client reads nothing until `read()` (then it drains the whole answer). */
function unreadStream(
  app: RunningApp,
): Promise<{ res: IncomingMessage; read: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      res.pause();
      const read = async (): Promise<string> => {
        let tail = '';
        for await (const chunk of res) tail = (tail + String(chunk)).slice(-64);
        return tail;
      };
      resolve({ res, read });
    });
    req.on('error', reject);
    req.end(chat(true));
  });
}

async function json(app: RunningApp): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: chat(false),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.each(ADAPTERS)('breaker slots of streamed answers (%s)', (adapter) => {
  let fake: FakeOpenAI;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    for (const a of apps) await a.close();
    await fake?.close();
  });

  async function start(slice: CircuitBreakerSlice, env: Record<string, string> = {}) {
    const app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        INFERENCE_UPSTREAM_URL: fake.url,
        ADMIN_TOKEN,
        INFERENCE_STREAM_RELAY_BYTES: String(32 * 1024 * 1024),
        ...env,
      },
      { search: 'empty', config: withBreaker(slice) },
    );
    apps.push(app);
    const admin = new AdminClient(app);
    const view = async (): Promise<BreakerView> =>
      (await admin.get<{ breakers: BreakerView[] }>('/admin/breakers')).body.breakers.find(
        (b) => b.name === 'inference',
      )!;
    return { app, view };
  }

  /** A big stream whose client reads nothing until the upstream has sent all of it. */
  async function unreadFinishedStream(app: RunningApp) {
    fake.setWordPadding(PADDING);
    const before = fake.requests;
    const a = await unreadStream(app);
    expect(a.res.statusCode).toBe(200);
    await expect.poll(() => fake.requests, { timeout: 10_000 }).toBe(before + 1);
    // The upstream finished its answer: everything is in Rampart's relay, nothing read by the client yet.
    await expect.poll(() => fake.inFlight, { timeout: 20_000 }).toBe(0);
    expect(a.res.readableEnded).toBe(false);
    return a;
  }

  it(
    'should free the slot once the upstream sent its last chunk, while the client still has the answer to read',
    { timeout: 60_000 },
    async () => {
      const { app, view } = await start(BREAKER);
      const a = await unreadFinishedStream(app);
      // The one slot is free: another call is admitted while the first answer is still being read (asked until
      // Rampart has relayed the upstream's last chunk; a slot held by the reader answers 503 backend_busy).
      fake.setWordPadding(0);
      await expect.poll(async () => (await json(app)).status, { timeout: 5_000 }).toBe(200);
      expect(a.res.readableEnded).toBe(false);
      expect((await view()).stats.inFlight).toBe(0);
      expect(await a.read()).toContain('data: [DONE]');
    },
  );

  it(
    "should take the adaptive limit's latency sample when the upstream is done, not when the reader is",
    { timeout: 60_000 },
    async () => {
      const adaptive = { minLimit: 1, initialLimit: 4, windowMs: 10, windowSamples: 1 };
      const { app, view } = await start({ ...BREAKER, capacity: 8, adaptive });
      const a = await unreadFinishedStream(app);
      // One more (short) call closes the window the stream's sample opened.
      fake.setWordPadding(0);
      await new Promise((r) => setTimeout(r, 20)); // past windowMs
      expect((await json(app)).status).toBe(200);
      const limit = (await view()).adaptive!;
      expect(limit.sampleRttMs).toBeGreaterThan(0);
      expect(a.res.readableEnded).toBe(false); // taken before the client read anything
      expect(await a.read()).toContain('data: [DONE]');
    },
  );

  it('should free the slot at once when the client goes away mid-stream', async () => {
    const { app, view } = await start(BREAKER);
    fake.pauseStreams();
    const a = await unreadStream(app);
    await expect.poll(async () => (await view()).stats.inFlight, { timeout: 5_000 }).toBe(1);
    a.res.destroy();
    await expect.poll(async () => (await view()).stats.inFlight, { timeout: 5_000 }).toBe(0);
    expect((await json(app)).status).toBe(200);
    fake.resumeStreams();
  });

  it('should cut off a client that reads none of the relayed answer for the drain timeout', async () => {
    const { app } = await start(BREAKER, { INFERENCE_STREAM_DRAIN_TIMEOUT_MS: '300' });
    const a = await unreadFinishedStream(app);
    // The relay's bytes went nowhere: Rampart cuts the connection (the paused client does not notice yet).
    const cutoffs = async (): Promise<string> => (await fetch(`${app.url}/metrics`)).text();
    await expect
      .poll(cutoffs, { timeout: 10_000 })
      .toContain('rampart_inference_stream_cutoffs_total{reason="no_read"} 1');
    a.res.destroy();
  });
});

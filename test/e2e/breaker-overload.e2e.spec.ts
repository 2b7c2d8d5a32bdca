/**
 * Overload control of lock 4 (docs/circuit-breaker.md#overload-control), over HTTP on both adapters, against
 * a real OpenAI-compatible upstream (test/support/fake-openai.ts) that slows down:
 * - the adaptive limit falls when the backend's latency grows, and the calls above it get 503 `backend_busy`
 *   at once instead of piling up at the backend;
 * - with `maxWaitMs`, calls above a full bulkhead wait in order for a slot instead of 503, within `maxWaiting`;
 * - slow successes over `slowCallRatio` open the circuit, and its state names `slow_calls`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';

const BREAKER: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'inference',
  timeoutMs: 10_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 1_000,
  rollingCountTimeoutMs: 60_000,
  rollingCountBuckets: 6,
  resetTimeoutMs: 60_000,
  resetJitter: 0,
  capacity: 64,
  maxWaitMs: 0, // the excess is refused at once unless a test sets a wait (inference ships one)
  fairShare: false,
  adaptive: { minLimit: 2, initialLimit: 20, windowMs: 100, windowSamples: 5, smoothing: 0.5 },
  slowCallMs: 0,
};

function withBreaker(slice: CircuitBreakerSlice) {
  return (c: RampartConfig): RampartConfig => {
    const off = { mode: 'off' as const };
    return {
      ...c,
      policies: {
        ...c.policies,
        inference: {
          ...c.policies.inference!,
          locks: { signature: off, rateLimit: off, cacheShield: off, circuitBreaker: slice },
        },
      },
    };
  };
}

interface BreakerView {
  name: string;
  phase: string;
  reason?: string;
  adaptive?: { limit: number; minRttMs?: number; sampleRttMs?: number; inFlight: number };
}

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

async function infer(
  app: RunningApp,
  gone?: AbortSignal,
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const res = await fetch(`${app.url}/v1/inference`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: CHAT,
    signal: gone,
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    retryAfter: res.headers.get('retry-after'),
  };
}

/** `workers` callers in a loop, each sending `each` calls one after the other. */
async function load(app: RunningApp, workers: number, each: number): Promise<number[]> {
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = 0; i < each; i++) statuses.push((await infer(app)).status);
    }),
  );
  return statuses;
}

async function metricValue(app: RunningApp, name: string): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{backend="inference"} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
}

describe.each(ADAPTERS)('breaker overload control (%s)', (adapter) => {
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

  async function start(
    slice: CircuitBreakerSlice,
  ): Promise<{ app: RunningApp; view: () => Promise<BreakerView> }> {
    const app = await startApp(
      { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, ADMIN_TOKEN },
      { search: 'empty', config: withBreaker(slice) },
    );
    apps.push(app);
    const admin = new AdminClient(app);
    const view = async () =>
      (await admin.get<{ breakers: BreakerView[] }>('/admin/breakers')).body.breakers.find(
        (b) => b.name === 'inference',
      )!;
    return { app, view };
  }

  it(
    'should lower the adaptive limit when the backend slows down, and refuse the excess at once with 503 backend_busy',
    { timeout: 150_000 },
    async () => {
      const { app, view } = await start(BREAKER);
      // The unloaded RTT: one caller, 15 calls, so at most 3 windows are judged (windowSamples 5). However slow the
      // machine makes some of them, 3 windows at the lowest gradient (0.5) take the limit from 20 to 11.7 at least.
      fake.setLatency(10);
      expect(await load(app, 1, 15)).toEqual(Array(15).fill(200));
      const fast = (await view()).adaptive!;
      expect(fast.minRttMs).toBeGreaterThan(0);
      expect(fast.limit).toBeGreaterThanOrEqual(10);

      // The backend gets slower and our calls queue there (past 2 in flight, each one more slows every call, as a
      // GPU pool shares itself): the limit follows its latency down, whatever the callers do. (A backend as slow
      // whatever our calls in flight is re-based instead: gradient-limit.spec.ts.) Slower relative to the minRtt
      // the limit measured (≥ 3×, however loaded the machine was), so every window's gradient is the lowest.
      const slowMs = Math.max(200, 3 * fast.minRttMs!);
      fake.setLatency((inFlight) => slowMs * Math.max(1, inFlight / 2));
      const callers = { stop: false };
      const background = Promise.all(
        Array.from({ length: 16 }, async () => {
          while (!callers.stop) {
            // A refused caller pauses instead of spinning: its retries would only load this process's event loop.
            if ((await infer(app)).status !== 200) await new Promise((r) => setTimeout(r, 25));
          }
        }),
      );
      try {
        await expect
          .poll(async () => (await view()).adaptive!.limit, { timeout: 90_000, interval: 200 })
          .toBeLessThanOrEqual(4);
      } finally {
        callers.stop = true;
        await background;
      }
      const slow = (await view()).adaptive!;
      expect(slow.sampleRttMs!).toBeGreaterThan(fast.minRttMs! * 2);

      // A burst far above the limit while the backend holds every call it gets (nothing ends, so the limit stays):
      // the excess is refused while the admitted calls are still held, never queued.
      fake.setHang(true);
      const before = fake.requests;
      const hangUp = new AbortController();
      const refused: Awaited<ReturnType<typeof infer>>[] = [];
      const burst = Array.from({ length: 30 }, () =>
        infer(app, hangUp.signal).then(
          (a) => void refused.push(a),
          () => undefined,
        ),
      );
      try {
        // Every call of the burst either reached the backend or was answered.
        await expect
          .poll(() => refused.length + (fake.requests - before), { timeout: 30_000 })
          .toBe(30);
        expect(fake.requests - before).toBeLessThanOrEqual(slow.limit);
        expect(fake.inFlight).toBeLessThanOrEqual(slow.limit);
        expect(refused.length).toBeGreaterThanOrEqual(30 - slow.limit);
        for (const a of refused) {
          expect(a.status).toBe(503);
          expect(a.body).toMatchObject({
            error: 'backend_busy',
            backend: 'inference',
            state: 'busy',
          });
          expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
        }
      } finally {
        hangUp.abort();
        await Promise.all(burst);
        fake.setHang(false);
      }

      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toMatch(/rampart_breaker_concurrency_limit\{backend="inference"\} \d+/);
      expect(metrics).toMatch(/rampart_breaker_min_rtt_seconds\{backend="inference"\} [\d.e-]+/);
      expect(metrics).toMatch(/rampart_breaker_sample_rtt_seconds\{backend="inference"\} [\d.e-]+/);
    },
  );

  it('should let calls above a full bulkhead wait for a slot with maxWaitMs, and refuse past maxWaiting', async () => {
    const { app } = await start({
      ...BREAKER,
      adaptive: false,
      capacity: 1,
      maxWaitMs: 30_000,
      maxWaiting: 2,
    });
    const release = fake.holdAnswers(); // nothing ends before the test has seen the queue full
    const before = fake.requests;
    // One call holds the only slot; two wait for it; the fourth finds the queue full.
    const first = infer(app);
    await expect.poll(() => fake.inFlight, { timeout: 10_000 }).toBe(1);
    const waiting = [infer(app), infer(app)];
    await expect
      .poll(async () => metricValue(app, 'rampart_breaker_waiting'), { timeout: 10_000 })
      .toBe(2);
    const refused = await infer(app);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: 'backend_busy' });
    release();
    const all = await Promise.all([first, ...waiting]);
    expect(all.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(fake.requests - before).toBe(3);
  });

  it(
    'should open the circuit on slow successes and name slow_calls as the reason',
    { timeout: 60_000 },
    async () => {
      const { app, view } = await start({
        ...BREAKER,
        adaptive: false,
        slowCallMs: 1_000,
        slowCallRatio: 0.5,
        minimumVolume: 4,
      });
      fake.setLatency(5);
      expect(await load(app, 1, 6)).toEqual(Array(6).fill(200));
      expect((await view()).phase).toBe('closed');
      // The backend still answers, only slowly: six slow calls at once (the rule counts them in one rolling window,
      // not in any order) make the slow share 50 % of twelve. Every one is admitted and answered 200 (the circuit
      // judges a call when it ends, and none has ended when the last is sent), and then the circuit is open.
      fake.setLatency(1_500);
      const before6 = fake.requests;
      const slow = Array.from({ length: 6 }, () => infer(app));
      await expect.poll(() => fake.requests - before6, { timeout: 10_000 }).toBe(6);
      expect((await view()).phase).toBe('closed'); // nothing slow has ended yet
      expect((await Promise.all(slow)).map((a) => a.status)).toEqual(Array(6).fill(200));
      expect(await view()).toMatchObject({ phase: 'open', reason: 'slow_calls' });
      const before = fake.requests;
      const refused = await infer(app);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: 'circuit_open', state: 'open' });
      expect(fake.requests).toBe(before);
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toContain(
        'rampart_breaker_trips_total{backend="inference",reason="slow_calls"} 1',
      );
    },
  );
});

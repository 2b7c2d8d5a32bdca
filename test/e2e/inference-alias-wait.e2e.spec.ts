/**
 * The fair wait behind a model alias with several upstreams (docs/inference.md#waiting-for-a-slot), over HTTP on
 * both adapters, against two real fake OpenAI upstreams on loopback (A and B), one slot each (their own breakers,
 * derived policies `inference-upstream-<name>`, with the inference breaker's shipped wait). Two streams held
 * (paused after their first word) take both slots; a third call waits for the first slot freed, on either
 * upstream, and is served there; past the bound (the app's lane full) it gets 503 `backend_busy` with
 * Retry-After and where it stood. Asserted by answers and queue lengths, never by time: the shipped wait is checked
 * as loaded, then raised to the longest the schema allows (60 s), so a loaded machine never turns a slow step
 * into a timeout.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, sseData, startFakeOpenAI } from '../support/fake-openai.js';

const off = { mode: 'off' as const };

/** The longest wait the schema allows (milliseconds): far past anything a test step takes. */
const MAX_WAIT_MS = 60_000;

/** Each upstream's breaker slice as loaded (before breakerOnly raises its wait). */
const shipped: Record<string, CircuitBreakerSlice> = {};

/**
 * Only lock 4 on the inference routes (unsigned: every call is one app, `-`); `tight`'s upstreams let it wait
 * once; every upstream waits up to MAX_WAIT_MS.
 */
function breakerOnly(c: RampartConfig): RampartConfig {
  const p = { ...c.policies };
  for (const name of ['inference', 'models'])
    p[name] = {
      ...p[name]!,
      locks: { ...p[name]!.locks, signature: off, rateLimit: off, cacheShield: off },
    };
  for (const x of ['wa', 'wb', 'ta', 'tb']) {
    const name = `inference-upstream-${x}`;
    shipped[x] = p[name]!.locks.circuitBreaker as CircuitBreakerSlice;
    const perApp = x.startsWith('t') ? { maxWaitingPerApp: 1 } : {};
    const cb = { ...p[name]!.locks.circuitBreaker, maxWaitMs: MAX_WAIT_MS, ...perApp };
    p[name] = { ...p[name]!, locks: { ...p[name]!.locks, circuitBreaker: cb } };
  }
  return { ...c, policies: p };
}

function configFile(a: string, b: string): string {
  const duo = (x: string) => ({
    upstreams: [
      { name: `${x}a`, url: a, model: 'model-a', capacity: 1 },
      { name: `${x}b`, url: b, model: 'model-b', capacity: 1 },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'rampart-alias-wait-'));
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({ inference: { models: { duo: duo('w'), tight: duo('t') } } }),
  );
  return file;
}

describe.each(ADAPTERS)('a model alias waits for a free upstream slot (%s)', (adapter) => {
  let A: FakeOpenAI;
  let B: FakeOpenAI;
  let app: RunningApp;

  beforeAll(async () => {
    A = await startFakeOpenAI();
    B = await startFakeOpenAI();
    const env = { HTTP_ADAPTER: adapter, CONFIG_FILE: configFile(A.url, B.url) };
    app = await startApp(env, { config: breakerOnly });
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

  /** A JSON call (plain problem+json errors). */
  async function infer(model: string) {
    const res = await fetch(`${app.url}/v1/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
  }

  /** Takes both upstreams' slots with a stream each, paused after its first word. */
  async function holdBoth(alias: string): Promise<Response[]> {
    A.pauseStreams();
    B.pauseStreams();
    const streams: Response[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: alias,
          stream: true,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      });
      expect(res.status).toBe(200);
      streams.push(res);
    }
    expect([A.inFlight, B.inFlight]).toEqual([1, 1]); // one on each: the second moved on from the full one
    return streams;
  }

  const drain = async (streams: Response[]): Promise<void> => {
    for (const s of streams) {
      const events: string[] = [];
      for await (const e of sseData(s)) events.push(e);
      expect(events.at(-1)).toBe('[DONE]');
    }
  };

  const waiting = async (upstream: string): Promise<number> => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const label = `rampart_breaker_waiting{backend="inference-upstream-${upstream}"} `;
    const line = text.split('\n').find((l) => l.startsWith(label));
    return line ? Number(line.slice(label.length)) : 0;
  };
  const waitingOn = (x: string) => () => Promise.all([waiting(`${x}a`), waiting(`${x}b`)]);

  it("should give each upstream the inference breaker's shipped wait", () => {
    expect(shipped.wa).toMatchObject({ capacity: 1, maxWaitMs: 5_000, maxWaiting: 64 });
  });

  it('should let a third call wait for the first upstream slot freed and serve it there', async () => {
    const held = await holdBoth('duo');
    const [a0, b0] = [A.requests, B.requests];
    const third = infer('duo');
    // It waits in both upstreams' queues at once (not refused).
    await expect.poll(waitingOn('w'), { timeout: 10_000 }).toEqual([1, 1]);
    A.resumeStreams(); // A's stream ends: its slot is the first one freed
    const answer = await third;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ object: 'chat.completion' });
    expect([A.requests - a0, B.requests - b0]).toEqual([1, 0]);
    expect(await waitingOn('w')()).toEqual([0, 0]); // it left B's queue
    B.resumeStreams();
    await drain(held);
  });

  it("should refuse a call past its app's lane with 503 backend_busy, Retry-After and its place, and still serve the one waiting", async () => {
    const held = await holdBoth('tight');
    const third = infer('tight');
    await expect.poll(waitingOn('t'), { timeout: 10_000 }).toEqual([1, 1]);
    const refused = await infer('tight'); // maxWaitingPerApp 1 on both: its lane is full
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe(String(MAX_WAIT_MS / 1_000));
    expect(refused.body).toMatchObject({
      error: 'backend_busy',
      state: 'busy',
      queue: { why: 'app_full', position: 2, length: 1 },
    });
    B.resumeStreams();
    expect((await third).status).toBe(200);
    A.resumeStreams();
    await drain(held);
  });
});

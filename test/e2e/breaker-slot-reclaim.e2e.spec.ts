/**
 * Slots taken back from an app over its fair share (`reclaimAfterMs`, docs/circuit-breaker.md#fair-share), on both
 * adapters: an app that took every slot of the inference bulkhead while alone, with streams that never end, has
 * its longest-held stream stopped when another app, within its share, finds no slot; that app is then served. The
 * shipped inference breaker as loaded, with a fixed bulkhead of 2, no wait (each refusal is seen) and
 * `reclaimAfterMs` 1 instead of the shipped 10 s, so any held stream is old enough: asserted by answers and counts,
 * never by time. A second app (`waiting`) has a bounded wait and `reclaimAfterMs` 3 s: a call of an app within its
 * share that is already waiting when the hog's streams reach the mark gets the slot taken back for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { testApps } from '../support/signature-routes.js';

const CAPACITY = 2;

const reclaiming =
  (shipped: (s: CircuitBreakerSlice) => void, over: Partial<CircuitBreakerSlice> = {}) =>
  (c: RampartConfig): RampartConfig => {
    const inference = c.policies.inference!;
    const slice = inference.locks.circuitBreaker as CircuitBreakerSlice;
    shipped(structuredClone(slice));
    const circuitBreaker = {
      ...slice,
      capacity: CAPACITY,
      adaptive: false as const,
      maxWaitMs: 0,
      reclaimAfterMs: 1,
      ...over,
    };
    const off = { mode: 'off' as const };
    const locks = { ...inference.locks, rateLimit: off, cacheShield: off, circuitBreaker };
    return { ...c, policies: { ...c.policies, inference: { ...inference, locks } } };
  };

describe.each(ADAPTERS)('slots taken back from an app over its share (%s)', (adapter) => {
  const apps = testApps();
  const hog = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  const fair = { appId: apps.debug.appId, secret: apps.debug.secret };
  let fake: FakeOpenAI;
  let app: RunningApp;
  let waiting: RunningApp;
  let shipped: CircuitBreakerSlice | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    const env = { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, APPS_FILE: apps.file };
    app = await startApp(env, { search: 'empty', config: reclaiming((s) => (shipped = s)) });
    const wait = { maxWaitMs: 15_000, reclaimAfterMs: 3_000 };
    waiting = await startApp(env, { search: 'empty', config: reclaiming(() => undefined, wait) });
  });
  afterAll(async () => {
    fake?.resumeStreams();
    await app?.close();
    await waiting?.close();
    await fake?.close();
  });

  /** A signed completion by `who` (streamed: the body is kept unread, with a way to hang up). */
  const call = async (who: typeof hog, stream: boolean, to = app) => {
    const url = `${to.url}/v1/chat/completions`;
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      stream,
      messages: [{ role: 'user', content: 'hold the line' }],
    });
    const ac = new AbortController();
    const res = await fetch(url, {
      method: 'POST',
      signal: ac.signal,
      headers: {
        'content-type': 'application/json',
        ...signRequest({ ...who, method: 'POST', url, body }),
      },
      body,
    });
    if (!stream || res.status !== 200) await res.arrayBuffer();
    return { status: res.status, res, hangUp: () => ac.abort() };
  };

  it('should stop the hog’s longest-held stream for an app within its share, which is then served', async () => {
    expect(shipped).toMatchObject({ reclaimAfterMs: 10_000, fairShare: true });
    fake.pauseStreams(); // the streams never end by themselves
    const held = [];
    for (let i = 0; i < CAPACITY; i++) held.push(await call(hog, true));
    expect(held.map((h) => h.status)).toEqual(Array(CAPACITY).fill(200));
    const abortedBefore = fake.aborted;
    const statuses: number[] = [];
    try {
      // The first call finds no slot (503) and has the hog's oldest stream stopped; a later one gets its slot.
      await expect
        .poll(
          async () => {
            const { status } = await call(fair, false);
            statuses.push(status);
            return status;
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(200);
      expect(statuses[0]).toBe(503);
      expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
      expect(fake.aborted - abortedBefore).toBe(1); // one stream stopped, its upstream call aborted
      // The hog, over its share while the other app is served, gets no new slot.
      expect((await call(hog, false)).status).toBe(503);
    } finally {
      for (const h of held) h.hangUp();
      fake.resumeStreams();
    }
  });

  /** Calls waiting for an inference slot on `to`, from its metrics. */
  const queued = async (to: RunningApp): Promise<number> => {
    const text = await (await fetch(`${to.url}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('rampart_breaker_waiting{backend="inference"} '));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
  };

  it('should take a hog’s stream back for a call already waiting when the stream reaches the mark, and serve that call', async () => {
    fake.pauseStreams();
    const held = [];
    for (let i = 0; i < CAPACITY; i++) held.push(await call(hog, true, waiting));
    expect(held.map((h) => h.status)).toEqual(Array(CAPACITY).fill(200));
    const abortedBefore = fake.aborted;
    try {
      // Alone, the hog may queue a third call; then the other app's call queues behind it, before the 3 s mark.
      const hogWaits = call(hog, false, waiting);
      await expect.poll(() => queued(waiting), { timeout: 2_000, interval: 50 }).toBe(1);
      const fairWaits = call(fair, false, waiting);
      await expect.poll(() => queued(waiting), { timeout: 2_000, interval: 50 }).toBe(2);
      expect(fake.aborted - abortedBefore).toBe(0); // queued before any stream was old enough
      // At the mark one of the hog's streams is stopped; its slot goes to the waiting call of the app within its
      // share, not to the hog's call that stood first in line (the hog is over its share).
      expect((await fairWaits).status).toBe(200);
      expect((await hogWaits).status).toBe(503);
      expect(fake.aborted - abortedBefore).toBe(1);
      expect(await queued(waiting)).toBe(0);
    } finally {
      for (const h of held) h.hangUp();
      fake.resumeStreams();
    }
  });
});

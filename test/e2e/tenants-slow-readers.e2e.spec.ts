/**
 * A hostile app's slow readers and another app's calls (docs/inference.md#stream-limits,
 * docs/circuit-breaker.md#streams-and-slow-readers), on both adapters, against the fake upstream: app B opens
 * streamed completions and reads nothing, or one byte a second. An answer that fits the relay
 * (INFERENCE_STREAM_RELAY_BYTES) frees its backend slot once the upstream sent its last chunk, so app A is served
 * while B's clients still have everything to read; an answer larger than the relay keeps its slot while the relay
 * is full, and a client that takes nothing is cut off at the drain timeout, which frees the slot for A.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { testApps } from '../support/signature-routes.js';

const CAPACITY = 4;
/** The relays of the two instances: one larger than an answer plus the sockets, one smaller. */
const BIG_RELAY = 32 * 1024 * 1024;
const SMALL_RELAY = 256 * 1024;

function withSmallBulkhead(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const locks = inference.locks;
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: {
        ...inference,
        locks: {
          ...locks,
          rateLimit: { mode: 'off' },
          cacheShield: { mode: 'off' },
          // A fixed bulkhead of CAPACITY that never takes a slot back (inference ships an adaptive limit within its
          // capacity, and takes slots back from an app over its share after 10 s).
          circuitBreaker: {
            ...locks.circuitBreaker,
            capacity: CAPACITY,
            maxWaitMs: 0,
            adaptive: false,
            reclaimAfterMs: 0,
          },
        },
      },
    },
  };
}

describe.each(ADAPTERS)("a hostile app's slow readers (%s)", (adapter) => {
  const apps = testApps();
  const [A, B] = [apps.main, apps.debug];
  const secrets = { [A.appId]: A.secrets[0]!, [B.appId]: B.secret };
  let fake: FakeOpenAI;
  let big: RunningApp;
  let small: RunningApp;
  let app: RunningApp;
  const open: ClientRequest[] = [];

  const start = (relay: number, drainMs: number): Promise<RunningApp> =>
    startApp(
      {
        HTTP_ADAPTER: adapter,
        INFERENCE_UPSTREAM_URL: fake.url,
        APPS_FILE: apps.file,
        INFERENCE_STREAM_RELAY_BYTES: String(relay),
        INFERENCE_STREAM_DRAIN_TIMEOUT_MS: String(drainMs),
      },
      { search: 'empty', config: withSmallBulkhead },
    );
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    big = await start(BIG_RELAY, 60_000);
    small = await start(SMALL_RELAY, 1_500);
  });
  afterAll(async () => {
    for (const r of open) r.destroy();
    await big?.close();
    await small?.close();
    await fake?.close();
  });

  const signed = (appId: string, stream: boolean) => {
    const url = `${app.url}/v1/chat/completions`;
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      stream,
      messages: [{ role: 'user', content: 'Read me slowly.' }],
    });
    const headers = {
      'content-type': 'application/json',
      ...signRequest({ appId, secret: secrets[appId]!, method: 'POST', url, body }),
    };
    return { url, body, headers };
  };

  /** App B's stream whose client reads nothing (`perSecond` 0) or one byte a second. */
  const slowReader = (perSecond: 0 | 1): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const s = signed(B.appId, true);
      const req = httpRequest(s.url, { method: 'POST', headers: s.headers, agent: false });
      open.push(req);
      req.on('response', (res) => {
        res.pause();
        if (perSecond) {
          const t = setInterval(() => res.read(1), 1000);
          res.once('close', () => clearInterval(t));
        }
        resolve(res);
      });
      req.on('error', reject);
      req.end(s.body);
    });

  /** App A's JSON call: its status. */
  const callA = async (): Promise<number> => {
    const s = signed(A.appId, false);
    const res = await fetch(s.url, { method: 'POST', headers: s.headers, body: s.body });
    await res.arrayBuffer();
    return res.status;
  };

  const metric = async (re: RegExp): Promise<number> =>
    Number(re.exec(await (await fetch(`${app.url}/metrics`)).text())?.[1] ?? 0);
  const slotsTaken = () => metric(/rampart_breaker_in_flight\{backend="inference"\} (\d+)/);
  const cutoffs = () => metric(/rampart_inference_stream_cutoffs_total\{reason="no_read"\} (\d+)/);

  it('should free the slots of answers that fit the relay as soon as the upstream is done: A is served', async () => {
    app = big;
    // 8 words, 8 MiB: more than the sockets hold, within the relay (no drain cut in this test).
    fake.setWordPadding(1024 * 1024);
    const readers = [];
    for (let i = 0; i < CAPACITY; i++) readers.push(await slowReader(i % 2 === 0 ? 0 : 1));
    expect(readers.map((r) => r.statusCode)).toEqual(Array(CAPACITY).fill(200));
    // B's clients have read (nearly) nothing, yet the backend's slots are free once the upstream finished.
    await expect.poll(slotsTaken, { timeout: 20_000 }).toBe(0);
    expect(readers.every((r) => !r.readableEnded)).toBe(true);
    for (let i = 0; i < CAPACITY; i++) expect(await callA()).toBe(200);
    for (const r of readers) r.destroy();
    fake.reset();
  });

  it('should cut an answer larger than the relay whose client takes nothing at the drain timeout, freeing its slot for A', async () => {
    app = small;
    fake.setWordPadding(2 * 1024 * 1024); // 16 MiB: more than the relay and the sockets hold
    const cut0 = await cutoffs();
    const readers = [];
    for (let i = 0; i < CAPACITY; i++) readers.push(await slowReader(i % 2 === 0 ? 0 : 1));
    expect(readers.map((r) => r.statusCode)).toEqual(Array(CAPACITY).fill(200));
    // B took every slot while alone (slots are never taken back): A waits at most the drain timeout for them.
    await expect.poll(callA, { timeout: 20_000, interval: 250 }).toBe(200);
    expect(await cutoffs()).toBeGreaterThan(cut0);
    await expect.poll(slotsTaken, { timeout: 20_000 }).toBe(0);
    fake.reset();
  });
});

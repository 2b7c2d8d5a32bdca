/**
 * The fair wait inference ships with (docs/inference.md#waiting-for-a-slot), over HTTP on both adapters, against
 * the fake OpenAI upstream (test/support/fake-openai.ts): the shipped inference breaker, its queue bounds left as
 * shipped (maxWaiting 64, maxWaitingPerApp 16), with one slot instead of 128. A call past the slot waits and is
 * served once it frees; a hostile app's 17th waiting call gets 503 `backend_busy` (`queue.why: app_full`) while
 * another app's call still waits and is served. Asserted by answers and the queue's length, never by time: the
 * upstream holds the slot until the test releases it, and the calls may wait (maxWaitMs) and run (timeoutMs) for
 * the longest the schema allows instead of the shipped 5 s and 30 s, so a loaded machine never turns a slow step
 * into a timeout (the shipped values are checked as loaded).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { testApps } from '../support/signature-routes.js';

/** The longest wait the schema allows (milliseconds): far past anything a test step takes. */
const MAX_WAIT_MS = 60_000;

/**
 * The shipped inference policy with one slot, waits and calls bounded only far past the test's steps; rate limit
 * and shield off (their 429s and hits are not tested here). `shipped` hears the breaker slice as loaded.
 */
const oneSlot =
  (shipped: (s: CircuitBreakerSlice) => void) =>
  (c: RampartConfig): RampartConfig => {
    const inference = c.policies.inference!;
    const off = { mode: 'off' as const };
    shipped(inference.locks.circuitBreaker as CircuitBreakerSlice);
    const circuitBreaker = {
      ...inference.locks.circuitBreaker,
      capacity: 1,
      maxWaitMs: MAX_WAIT_MS,
      timeoutMs: 600_000,
    };
    const locks = { ...inference.locks, rateLimit: off, cacheShield: off, circuitBreaker };
    return { ...c, policies: { ...c.policies, inference: { ...inference, locks } } };
  };

type Who = { appId: string; secret: string };

describe.each(ADAPTERS)('inference waits for a slot by default (%s)', (adapter) => {
  const apps = testApps();
  const A: Who = { appId: apps.debug.appId, secret: apps.debug.secret };
  const B: Who = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  let fake: FakeOpenAI;
  let app: RunningApp;
  let shipped: CircuitBreakerSlice | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    const env = { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, APPS_FILE: apps.file };
    app = await startApp(env, { config: oneSlot((s) => (shipped = s)) });
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  /** A signed call (plain problem+json errors); `gone` hangs it up. */
  async function infer(who: Who, gone?: AbortSignal) {
    const url = `${app.url}/v1/inference`;
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'wait your turn' }],
    });
    const headers = signRequest({ ...who, method: 'POST', url, body });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: gone,
    });
    const answer = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body: answer, retryAfter: res.headers.get('retry-after') };
  }

  /** App A takes the only slot with a call that never ends until `release()` hangs it up. */
  async function holdSlot(): Promise<{ release: () => void }> {
    fake.setLatency(600_000);
    const gone = new AbortController();
    const held = infer(A, gone.signal).catch(() => undefined);
    await expect.poll(() => fake.inFlight, { timeout: 10_000 }).toBe(1);
    fake.setLatency(0); // the calls that wait are answered at once once they have the slot
    return { release: () => (gone.abort(), void held) };
  }

  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  const waiting = () => metric('rampart_breaker_waiting{backend="inference"}');
  const servedAfterWait = () =>
    metric('rampart_breaker_wait_seconds_count{backend="inference",outcome="slot"}');

  it('should ship the wait on the inference breaker', () => {
    expect(shipped).toMatchObject({ maxWaitMs: 5_000, maxWaiting: 64, maxWaitingPerApp: 16 });
    const inForce = app.config.policies.inference!.locks.circuitBreaker as CircuitBreakerSlice;
    expect(inForce).toMatchObject({ maxWaiting: 64, maxWaitingPerApp: 16, capacity: 1 });
  });

  it('should let a call past the slots wait and serve it when the slot frees', async () => {
    const slot = await holdSlot();
    const served = await servedAfterWait();
    const call = infer(A);
    await expect.poll(waiting, { timeout: 10_000 }).toBe(1); // waiting, not refused
    slot.release();
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ object: 'chat.completion' });
    expect(await servedAfterWait()).toBe(served + 1);
    expect(await waiting()).toBe(0);
  });

  it("should refuse a hostile app's 17th waiting call with 503 backend_busy app_full while another app's call still waits and is served", async () => {
    const slot = await holdSlot();
    const lane = Array.from({ length: 16 }, () => infer(A));
    await expect.poll(waiting, { timeout: 10_000 }).toBe(16);
    const refused = await infer(A);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe(String(MAX_WAIT_MS / 1_000)); // maxWaitMs: the queue has drained by then
    expect(refused.body).toMatchObject({
      error: 'backend_busy',
      state: 'busy',
      queue: { why: 'app_full', position: 17, length: 16 },
    });
    const other = infer(B);
    await expect.poll(waiting, { timeout: 10_000 }).toBe(17); // A's full lane left room for B
    slot.release();
    expect((await other).status).toBe(200); // served second: a1, b1, a2, …
    // A's backlog is served, every call of it (nothing waits near maxWaitMs).
    const answers = await Promise.all(lane);
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    expect(await waiting()).toBe(0);
  });
});

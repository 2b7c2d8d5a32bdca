/**
 * The adaptive limit inference ships with (docs/circuit-breaker.md#adaptive-concurrency), over HTTP on both
 * adapters: the shipped inference breaker as loaded (only its windows shortened, so the test takes seconds, not
 * minutes), signature, rate limit and shield off. Against a backend of 2 slots whose calls queue past them (each
 * call in flight beyond 2 slows every call, as a GPU pool shares itself), 16 callers at once: the limit falls
 * below the 16 the callers would put in flight, and the backend sees no more calls at once than the limit lets
 * through; the callers past it wait in the breaker's fair queue (or get 503 `backend_busy`) instead of queueing at
 * the backend. A fixed bulkhead of 128 (the shipped policy before issue 32) fails both: the backend sees all 16.
 * Asserted by counts, never by time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { CircuitBreakerSlice } from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';

const CALLERS = 16;

/** The shipped inference policy, its breaker as shipped but for shorter windows; `shipped` hears it as loaded. */
const asShipped =
  (shipped: (s: CircuitBreakerSlice) => void) =>
  (c: RampartConfig): RampartConfig => {
    const inference = c.policies.inference!;
    const off = { mode: 'off' as const };
    const slice = inference.locks.circuitBreaker as CircuitBreakerSlice;
    shipped(structuredClone(slice));
    const adaptive = slice.adaptive && { ...slice.adaptive, windowMs: 100, windowSamples: 5 };
    const circuitBreaker = { ...slice, ...(adaptive ? { adaptive } : {}) };
    const locks = { signature: off, rateLimit: off, cacheShield: off, circuitBreaker };
    return { ...c, policies: { ...c.policies, inference: { ...inference, locks } } };
  };

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

describe.each(ADAPTERS)(
  'inference follows its backend with the shipped adaptive limit (%s)',
  (adapter) => {
    let fake: FakeOpenAI;
    let app: RunningApp;
    let shipped: CircuitBreakerSlice | undefined;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      app = await startApp(
        { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, ADMIN_TOKEN },
        { search: 'empty', config: asShipped((s) => (shipped = s)) },
      );
    });
    afterAll(async () => {
      await app?.close();
      await fake?.close();
    });

    const infer = async (): Promise<number> =>
      (
        await fetch(`${app.url}/v1/inference`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: CHAT,
        })
      ).status;
    const limit = async (): Promise<number | undefined> => {
      const { body } = await new AdminClient(app).get<{
        breakers: { name: string; adaptive?: { limit: number } }[];
      }>('/admin/breakers');
      return body.breakers.find((b) => b.name === 'inference')?.adaptive?.limit;
    };

    it(
      'should keep the calls in flight at a backend that queues them below what the callers would send',
      { timeout: 180_000 },
      async () => {
        expect(shipped?.adaptive).toMatchObject({ minLimit: 2 });
        expect(shipped?.capacity).toBe(128);
        // The unloaded latency first (one caller), then the backend queues past 2 calls in flight.
        fake.setLatency(10);
        for (let i = 0; i < 15; i++) expect(await infer()).toBe(200);
        const first = await limit();
        expect(first).toBeDefined();
        let peak = 0;
        fake.setLatency((inFlight) => {
          peak = Math.max(peak, inFlight);
          return 60 * Math.max(1, inFlight / 2);
        });
        const callers = { stop: false };
        const statuses: number[] = [];
        const background = Promise.all(
          Array.from({ length: CALLERS }, async () => {
            while (!callers.stop) {
              const status = await infer();
              statuses.push(status);
              if (status !== 200) await new Promise((r) => setTimeout(r, 25));
            }
          }),
        );
        try {
          await expect.poll(limit, { timeout: 150_000, interval: 200 }).toBeLessThanOrEqual(6);
          // From here on the backend sees at most the limit (it may move up by a window's headroom meanwhile).
          peak = 0;
          const seen = statuses.length;
          await expect.poll(() => statuses.length - seen, { timeout: 60_000 }).toBeGreaterThan(40);
          expect(peak).toBeLessThan(CALLERS);
        } finally {
          callers.stop = true;
          await background;
        }
        // Nothing refused for being broken: 200s, and at most 503 backend_busy for calls past their wait.
        expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
        expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(40);
      },
    );
  },
);

/**
 * Shedding on the p99 of admitted requests (docs/quotas.md#own-health), on both
 * adapters, against a real OpenAI-compatible upstream (test/support/fake-openai.ts)
 * that slows down: the requests the rate-limit lock admitted take 600 ms, their p99
 * passes `admittedP99.hard`, the instance's local level goes hard with reason
 * `latency`, inference gets 503 `load_shed` while /health/live answers, and once
 * no slow request is admitted the level falls back and inference answers again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { LoadMonitor } from '../../src/locks/rate-limit/load/load-monitor.service.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { uniqueEnv } from '../support/redis-env.js';

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

/** Inference unsigned with one global rule (the latency input is under test, not the quotas). */
const withLatencyInput = (c: RampartConfig): RampartConfig => {
  const off = { mode: 'off' as const };
  const inference = c.policies.inference!;
  const rl = inference.locks.rateLimit as Record<string, unknown>;
  return {
    ...c,
    sections: {
      ...c.sections,
      rateLimit: {
        load: { poll: '50ms', hold: '3s', admittedP99: { soft: '150ms', hard: '400ms' } },
      },
    },
    policies: {
      ...c.policies,
      inference: {
        ...inference,
        locks: {
          ...inference.locks,
          signature: off,
          cacheShield: off,
          rateLimit: {
            ...rl,
            tokens: undefined,
            cost: undefined,
            rules: [{ name: 'global', dimension: 'global', capacity: 1000, rate: '200/s' }],
          },
        },
      },
    },
  } as unknown as RampartConfig;
};

const infer = (app: RunningApp) =>
  fetch(`${app.url}/v1/inference`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: CHAT,
  });

describe.each(ADAPTERS)('load level from admitted latency (%s)', (adapter) => {
  let fake: FakeOpenAI;
  let app: RunningApp;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startApp(
      { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, RAMPART_ENV: uniqueEnv('qal') },
      { search: 'empty', config: withLatencyInput },
    );
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('should shed inference while admitted requests are slow, keep live, and come back', async () => {
    const monitor = app.app.get(LoadMonitor);
    await vi.waitFor(async () => expect((await infer(app)).status).toBe(200), {
      timeout: 20_000,
      interval: 100,
    });
    await vi.waitFor(() => expect(monitor.state.level).toBe('normal'), { timeout: 20_000 });

    // The upstream slows down: admitted calls take 600 ms until the level sheds them.
    fake.setLatency(600);
    const callers = { stop: false };
    const statuses: number[] = [];
    const background = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!callers.stop) statuses.push((await infer(app)).status);
      }),
    );
    await vi.waitFor(
      () => expect(monitor.state).toMatchObject({ level: 'hard', reason: 'latency' }),
      { timeout: 30_000, interval: 20 },
    );
    callers.stop = true;
    await background;
    expect(statuses).toContain(200);

    // Hard on its own latency: inference is shed at once (the upstream is fast again, it is not asked).
    fake.setLatency(0);
    const calls = fake.requests;
    const shed = await infer(app);
    // Held `hold` (3 s) from the last slow window: still hard here.
    expect(shed.status).toBe(503);
    expect(((await shed.json()) as { error: string }).error).toBe('load_shed');
    expect(fake.requests).toBe(calls);
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    const p99 = Number(/rampart_load_admitted_p99_seconds ([\d.e-]+)/.exec(metrics)?.[1]);
    expect(p99).toBeGreaterThan(0.4);

    // Nothing slow admitted any more: the level falls back after `hold`, inference answers.
    await vi.waitFor(() => expect(monitor.state.level).toBe('normal'), {
      timeout: 20_000,
      interval: 50,
    });
    await vi.waitFor(async () => expect((await infer(app)).status).toBe(200), {
      timeout: 20_000,
      interval: 100,
    });
  }, 90_000);
});

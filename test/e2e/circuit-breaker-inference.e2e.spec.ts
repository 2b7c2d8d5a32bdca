/**
 * Lock 4 around the inference backend, over HTTP on both adapters, against a
 * real OpenAI-compatible upstream (test/support/fake-openai.ts) whose errors,
 * latency and hanging are switched at run time. Forces and resets go through
 * the admin API (policy changes), as operators would do it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { ADMIN_TOKEN, AdminClient, READY_DETAIL, eventually } from '../support/admin-client.js';
import { FakeOpenAI, sseData, startFakeOpenAI } from '../support/fake-openai.js';

const BREAKER = {
  mode: 'enforce' as const,
  backend: 'inference',
  timeoutMs: 1_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 4,
  rollingCountTimeoutMs: 60_000,
  rollingCountBuckets: 6,
  resetTimeoutMs: 1_500,
  resetJitter: 0,
  capacity: 50,
  maxWaitMs: 0, // a full bulkhead answers 503 at once here (inference ships a wait)
  halfOpenProbes: 2,
  rampPercents: [50],
  rampMs: 60_000,
};

function withBreaker(c: RampartConfig): RampartConfig {
  const off = { mode: 'off' as const };
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: {
        ...c.policies.inference!,
        locks: { signature: off, rateLimit: off, cacheShield: off, circuitBreaker: { ...BREAKER } },
      },
    },
  };
}

interface BreakerView {
  name: string;
  phase: string;
  state: string;
  forced?: string;
  stats: Record<string, number>;
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello breaker' }] };

async function infer(app: RunningApp, extra: Record<string, unknown> = {}): Promise<Answer> {
  const res = await fetch(`${app.url}/v1/inference`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...CHAT, ...extra }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function metric(app: RunningApp, line: RegExp): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const m = text.split('\n').find((l) => line.test(l));
  return m ? Number(m.slice(m.lastIndexOf(' ') + 1)) : NaN;
}

describe.each(ADAPTERS)(
  'circuit breaker around inference (%s)',
  { concurrent: true },
  (adapter) => {
    let fake: FakeOpenAI;
    let app: RunningApp;
    let admin: AdminClient;

    async function breakerStatus(): Promise<BreakerView> {
      const r = await admin.get<{ breakers: BreakerView[] }>('/admin/breakers');
      return r.body.breakers.find((b) => b.name === 'inference')!;
    }

    /** Opens the breaker the honest way (upstream 500s up to the threshold); resolves with a time before the first probe is due. */
    async function trip(): Promise<number> {
      fake.setStatus(500);
      for (let i = 0; i < BREAKER.volumeThreshold; i++) {
        const a = await infer(app);
        expect(a.status).toBe(502);
        expect(a.body).toMatchObject({ error: 'upstream_error' });
      }
      const asked = Date.now(); // before the server computed the wait, so never later than the real due time
      const s = await breakerStatus();
      expect(s.phase).toBe('open');
      return asked + s.stats.nextProbeInMs!;
    }

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      app = await startApp(
        { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, ADMIN_TOKEN },
        { search: 'empty', config: withBreaker },
      );
      // Readiness waits for the shield's filters (ready means armed); this file reads readiness.
      await app.app.get(BloomService).ready;
      admin = new AdminClient(app);
    });
    afterAll(async () => {
      await app?.close();
      await fake?.close();
    });
    beforeEach(async () => {
      fake.reset();
      expect((await admin.call('POST', '/admin/breakers/inference/reset')).status).toBe(200);
    });

    it.sequential(
      'should open after the threshold and then refuse at once with 503 circuit_open, without calling the upstream',
      async () => {
        const probeDue = await trip();
        const before = fake.requests;
        let refused = 0;
        // Every call before the reset timeout is over is refused (jitter 0: the probe is due exactly then).
        // Stop a little before the probe is due: a request sent just before it may arrive after it.
        while (refused < 20 && Date.now() < probeDue - 250) {
          refused++;
          const a = await infer(app);
          expect(a.status).toBe(503);
          expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(a.headers.get('rampart-breaker')).toBe('open');
          const retryAfter = Number(a.headers.get('retry-after'));
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(Math.ceil(BREAKER.resetTimeoutMs / 1000));
          expect(a.body).toMatchObject({
            status: 503,
            error: 'circuit_open',
            backend: 'inference',
            state: 'open',
            retry_after: retryAfter,
          });
        }
        expect(refused).toBeGreaterThan(0);
        expect(fake.requests).toBe(before);
        expect(
          await metric(app, /^rampart_breaker_state\{backend="inference",state="open"\}/),
        ).toBe(1);
        expect(
          await metric(
            app,
            /^rampart_breaker_rejections_total\{backend="inference",policy="inference",reason="open",mode="enforce"\}/,
          ),
        ).toBeGreaterThanOrEqual(refused);
        expect(
          await metric(
            app,
            /^rampart_breaker_transitions_total\{backend="inference",from="closed",to="open"\}/,
          ),
        ).toBeGreaterThanOrEqual(1);
        const ready = (await (await fetch(`${app.url}/health/ready`, READY_DETAIL)).json()) as {
          status: string;
          details: Record<string, { status: string; message?: string }>;
        };
        expect(ready.status).toBe('degraded');
        expect(ready.details['breaker:inference']).toMatchObject({
          status: 'degraded',
          message: expect.stringMatching(/circuit open/),
        });
      },
    );

    it.sequential(
      'should send probes one at a time after the reset timeout, ramp the traffic, then close',
      async () => {
        await trip();
        fake.reset();
        const before = fake.requests;
        // The first call after the reset timeout is the first probe.
        const first = await eventually(
          () => infer(app),
          (a) => a.status !== 503,
          5_000,
          50,
        );
        expect(first.status).toBe(200);
        expect(fake.requests).toBe(before + 1);
        expect((await infer(app)).status).toBe(200); // second probe → recovering at 50 %
        expect(await breakerStatus()).toMatchObject({
          phase: 'recovering',
          state: 'half_open',
          stats: { admittedPercent: 50 },
        });
        const ramp = [];
        for (let i = 0; i < 6; i++) ramp.push(await infer(app));
        expect(ramp.map((a) => a.status)).toEqual([503, 200, 503, 200, 503, 200]);
        for (const refused of ramp.filter((a) => a.status === 503)) {
          expect(refused.body).toMatchObject({ error: 'circuit_open', state: 'recovering' });
          expect(refused.headers.get('rampart-breaker')).toBe('recovering');
        }
        expect(fake.requests).toBe(before + 2 + 3);
        // Options replaced at run time keep the state: a shorter ramp ends it now.
        expect(
          (
            await admin.call('PATCH', '/admin/policies/inference/locks/circuitBreaker/options', {
              options: { rampMs: 1 },
            })
          ).status,
        ).toBe(200);
        expect(await breakerStatus()).toMatchObject({ phase: 'recovering' });
        await eventually(
          async () => Promise.all(Array.from({ length: 5 }, () => infer(app))),
          (all) => all.every((a) => a.status === 200),
          10_000,
          100,
        );
        expect(
          await metric(
            app,
            /^rampart_breaker_transitions_total\{backend="inference",from="recovering",to="closed"\}/,
          ),
        ).toBeGreaterThanOrEqual(1);
        expect(
          (
            await admin.call('PATCH', '/admin/policies/inference/locks/circuitBreaker/options', {
              options: { rampMs: BREAKER.rampMs },
            })
          ).status,
        ).toBe(200);
      },
    );

    it.sequential(
      'should reopen when a probe fails, with only that probe reaching the upstream',
      async () => {
        await trip();
        const before = fake.requests;
        const probe = await eventually(
          () => infer(app),
          (a) => a.status !== 503,
          5_000,
          50,
        );
        expect(probe.status).toBe(502);
        expect(fake.requests).toBe(before + 1);
        expect((await infer(app)).body).toMatchObject({ error: 'circuit_open', state: 'open' });
      },
    );

    it.sequential(
      'should abort a call that times out: 504 backend_timeout, and the upstream sees the call go away',
      async () => {
        fake.setHang(true);
        const aborted = fake.aborted;
        const a = await infer(app);
        expect(a.status).toBe(504);
        expect(a.body).toMatchObject({ error: 'backend_timeout', backend: 'inference' });
        await eventually(
          async () => fake.aborted,
          (n) => n === aborted + 1,
        );
        await eventually(
          async () => fake.inFlight,
          (n) => n === 0,
        );
        expect(
          await metric(app, /^rampart_breaker_timeouts_total\{backend="inference"\}/),
        ).toBeGreaterThanOrEqual(1);
        expect(await metric(app, /^rampart_breaker_in_flight\{backend="inference"\}/)).toBe(0);
      },
    );

    it.sequential(
      'should count a JSON call in flight as the upstream does, and free its slot when its client goes away',
      async () => {
        const patch = (options: Record<string, unknown>) =>
          admin.call('PATCH', '/admin/policies/inference/locks/circuitBreaker/options', {
            options,
          });
        // The breaker's own timeout far away: only the client going away can end the call.
        expect((await patch({ timeoutMs: 600_000 })).status).toBe(200);
        try {
          fake.setHang(true);
          const aborted = fake.aborted;
          const client = new AbortController();
          const call = fetch(`${app.url}/v1/inference`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(CHAT),
            signal: client.signal,
          }).catch((err: unknown) => err);
          await eventually(
            async () => fake.inFlight,
            (n) => n === 1,
          );
          const inFlight = /^rampart_breaker_in_flight\{backend="inference"\}/;
          expect(await metric(app, inFlight)).toBe(1);
          expect(await breakerStatus()).toMatchObject({ stats: { inFlight: 1 } });
          client.abort();
          expect(await call).toMatchObject({ name: 'AbortError' });
          // The upstream never answers: the slot is freed by the client's going away, not by the upstream's end.
          await eventually(
            () => metric(app, inFlight),
            (n) => n === 0,
          );
          await eventually(
            async () => fake.aborted,
            (n) => n === aborted + 1,
          );
          expect(fake.inFlight).toBe(0);
          expect(await breakerStatus()).toMatchObject({ stats: { inFlight: 0 } });
        } finally {
          expect((await patch({ timeoutMs: BREAKER.timeoutMs })).status).toBe(200);
        }
      },
    );

    it.sequential('should never trip on upstream 4xx or on validation errors', async () => {
      fake.setStatus(429);
      for (let i = 0; i < 12; i++) {
        const a = await infer(app);
        expect(a.status).toBe(429);
        expect(a.body).toMatchObject({ error: 'upstream_rejected' });
      }
      for (let i = 0; i < 12; i++) expect((await infer(app, { messages: [] })).status).toBe(400);
      fake.reset();
      expect((await infer(app)).status).toBe(200);
    });

    it.sequential(
      'should let a stream that outlasts timeoutMs finish once its headers are sent',
      async () => {
        fake.setChunkDelay(100); // 8 chunks, ~800 ms, twice the breaker timeout
        const res = await fetch(`${app.url}/v1/inference`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...CHAT, stream: true }),
        });
        expect(res.status).toBe(200);
        const events: string[] = [];
        for await (const data of sseData(res)) events.push(data);
        expect(events.at(-1)).toBe('[DONE]');
        expect(events.length).toBeGreaterThan(8);
      },
    );

    it.sequential(
      'should follow force open, force closed and reset set through the admin API',
      async () => {
        const forced = await admin.call('PUT', '/admin/breakers/inference/force', {
          state: 'open',
        });
        expect(forced.status).toBe(200);
        const before = fake.requests;
        expect((await infer(app)).body).toMatchObject({
          error: 'circuit_open',
          state: 'forced_open',
        });
        expect(fake.requests).toBe(before);
        expect((await admin.call('DELETE', '/admin/breakers/inference/force')).status).toBe(200);
        expect((await infer(app)).status).toBe(200); // a probe, at once

        expect(
          (await admin.call('PUT', '/admin/breakers/inference/force', { state: 'closed' })).status,
        ).toBe(200);
        fake.setStatus(500);
        for (let i = 0; i < 3 * BREAKER.volumeThreshold; i++)
          expect((await infer(app)).status).toBe(502);
        expect(await breakerStatus()).toMatchObject({ forced: 'closed', phase: 'forced_closed' });
        expect((await admin.call('DELETE', '/admin/breakers/inference/force')).status).toBe(200);

        await trip();
        expect((await infer(app)).status).toBe(503);
        fake.reset();
        expect((await admin.call('POST', '/admin/breakers/inference/reset')).status).toBe(200);
        expect((await infer(app)).status).toBe(200);
      },
    );

    it.sequential(
      'should refuse calls past capacity with 503 backend_busy while the slots are taken',
      async () => {
        const patch = (options: Record<string, unknown>) =>
          admin.call('PATCH', '/admin/policies/inference/locks/circuitBreaker/options', {
            options,
          });
        expect((await patch({ capacity: 2 })).status).toBe(200);
        try {
          fake.setLatency(300);
          const answers = await Promise.all(Array.from({ length: 5 }, () => infer(app)));
          expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
          const busy = answers.filter((a) => a.status === 503);
          expect(busy).toHaveLength(3);
          for (const a of busy) {
            expect(a.body).toMatchObject({
              error: 'backend_busy',
              backend: 'inference',
              state: 'busy',
            });
            expect(a.headers.get('retry-after')).toBe('1');
          }
          expect(await breakerStatus()).toMatchObject({ phase: 'closed', stats: { inFlight: 0 } });
        } finally {
          expect((await patch({ capacity: BREAKER.capacity })).status).toBe(200);
        }
      },
    );

    it.sequential(
      'should only count in shadow mode: the upstream keeps being called while the breaker would refuse',
      async () => {
        expect(
          (
            await admin.call('PATCH', '/admin/policies/inference/locks/circuitBreaker', {
              mode: 'shadow',
            })
          ).status,
        ).toBe(200);
        try {
          fake.setStatus(500);
          for (let i = 0; i < BREAKER.volumeThreshold; i++)
            expect((await infer(app)).status).toBe(502);
          expect((await breakerStatus()).phase).toBe('open');
          const before = fake.requests;
          for (let i = 0; i < 5; i++) {
            const a = await infer(app);
            expect(a.status).toBe(502);
            expect(a.body).toMatchObject({ error: 'upstream_error' });
          }
          expect(fake.requests).toBeGreaterThanOrEqual(before + 5);
          expect(
            await metric(
              app,
              /^rampart_breaker_rejections_total\{backend="inference",policy="inference",reason="open",mode="shadow"\}/,
            ),
          ).toBeGreaterThanOrEqual(1);
          expect(
            await metric(
              app,
              /^rampart_lock_decisions_total\{lock="circuitBreaker",policy="inference",outcome="shadow_rejected"\}/,
            ),
          ).toBeGreaterThanOrEqual(1);
        } finally {
          expect(
            (
              await admin.call('PATCH', '/admin/policies/inference/locks/circuitBreaker', {
                mode: 'enforce',
              })
            ).status,
          ).toBe(200);
        }
      },
    );

    it.sequential(
      'should refuse a second policy setting options for the same backend, naming the owner',
      async () => {
        const r = await admin.call('PATCH', '/admin/policies/whoami/locks/circuitBreaker/options', {
          options: { backend: 'inference', timeoutMs: 50 },
        });
        expect(r.status).toBe(400);
        expect(JSON.stringify(r.body)).toContain(
          'backend \\"inference\\" already takes its options from policy \\"inference\\"',
        );
      },
    );
  },
);

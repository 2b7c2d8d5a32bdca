import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, CircuitBreakerSlice } from '../circuit-breaker.types.js';
import { BackendBreaker, type Tenant } from './backend-breaker.js';
import { resolveBackends } from './backend-plans.js';
import type { QueuePlace } from './fair-queue.js';

/** The wait for a slot through BackendBreaker.admitWaiting(): round robin between apps, per-app bound, places. */
const SLICE: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'b',
  timeoutMs: 5_000,
  volumeThreshold: 100,
  resetJitter: 0,
  capacity: 1,
  fairShare: false,
  rampPercents: [],
  maxWaitMs: 60_000,
  maxWaiting: 10,
  maxWaitingPerApp: 10,
};

const breakers: BackendBreaker[] = [];
function breaker(slice: Partial<CircuitBreakerSlice> = {}): BackendBreaker {
  const policies: Record<string, RoutePolicy> = {
    p: { locks: { circuitBreaker: { ...SLICE, ...slice } } },
  };
  const plan = resolveBackends(policies).plans.get('b')!;
  const b = new BackendBreaker(plan, new BreakerMetrics(new MetricsService()), new ManualClock());
  breakers.push(b);
  return b;
}
afterEach(() => {
  for (const b of breakers.splice(0)) b.shutdown();
});

const OPTS = {
  abortOnTimeout: true,
  committed: () => false,
  abort: () => undefined,
  backendCalled: () => true,
};

/** Runs an admitted call until `end()`. */
function hold(b: BackendBreaker, a: Admission, tenant: Tenant): { end: () => void } {
  if (!a.admit) throw new Error(`refused: ${a.reason}`);
  let end!: () => void;
  const done = new Promise<void>((r) => (end = r));
  b.guard(a, () => done, OPTS, tenant);
  return { end };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const A: Tenant = { id: 'app-a' };
const B: Tenant = { id: 'app-b' };

describe('BackendBreaker.admitWaiting (fair wait queue)', () => {
  it("should hand freed slots round robin between apps: B's calls go before A's earlier backlog", async () => {
    const b = breaker();
    let running = hold(b, b.admit(A), A);
    const served: string[] = [];
    const got = new Map<string, { a: Admission; t: Tenant }>();
    const places: Record<string, QueuePlace> = {};
    const wait = (t: Tenant, name: string): void =>
      void b
        .admitWaiting(t, undefined, (p) => (places[name] = p))
        .then((a) => (served.push(name), got.set(name, { a, t })));
    for (const [t, name] of [
      [A, 'a1'],
      [A, 'a2'],
      [A, 'a3'],
      [B, 'b1'],
      [B, 'b2'],
    ] as const)
      wait(t, name);
    expect(places).toMatchObject({
      a3: { position: 3, length: 3 },
      b1: { position: 2, length: 4 },
    });
    expect(places.b2).toEqual({ position: 4, length: 5 });
    for (let i = 0; i < 5; i++) {
      running.end(); // one slot freed at a time: the queue decides who gets it
      while (served.length <= i) await tick();
      const next = got.get(served[i]!)!;
      running = hold(b, next.a, next.t);
    }
    running.end();
    expect(served).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('should refuse an app past maxWaitingPerApp with its place and Retry-After, while another app still queues', async () => {
    const b = breaker({ maxWaiting: 3, maxWaitingPerApp: 2 });
    const running = hold(b, b.admit(A), A);
    const a = [b.admitWaiting(A), b.admitWaiting(A)];
    expect(await b.admitWaiting(A)).toEqual({
      admit: false,
      reason: 'busy',
      retryAfterMs: 60_000,
      queue: { why: 'app_full', position: 3, length: 2 },
    });
    const bWaits = b.admitWaiting(B); // A's backlog did not take B's room
    expect(b.status().stats.waiting).toBe(3);
    expect(await b.admitWaiting({ id: 'app-c' })).toMatchObject({
      admit: false,
      queue: { why: 'full', length: 3 },
    });
    running.end();
    const first = await a[0]!; // A's lane came first in the ring
    expect(first).toMatchObject({ admit: true, waited: true });
    hold(b, first, A).end();
    // B's one call goes next, before A's second that waited longer.
    expect(await Promise.race([bWaits, a[1]!])).toBe(await bWaits);
    expect(b.status().stats.waiting).toBe(1);
  });

  it('should answer a call whose maxWaitMs ran out with why timeout and the queue length', async () => {
    const b = breaker({ maxWaitMs: 20 });
    const running = hold(b, b.admit(A), A);
    expect(await b.admitWaiting(B)).toMatchObject({
      admit: false,
      reason: 'busy',
      retryAfterMs: 1_000,
      queue: { why: 'timeout', length: 0 },
    });
    running.end();
  });
});

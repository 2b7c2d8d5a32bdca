import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { ProblemException } from '../../../common/problem.exception.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, CircuitBreakerSlice } from '../circuit-breaker.types.js';
import { BackendBreaker, type Tenant } from './backend-breaker.js';
import { resolveBackends } from './backend-plans.js';
import type { GuardOptions } from './guarded-call.js';

/** Overload control of one breaker: adaptive limit as the bulkhead's size, bounded waiting, slow-call trips. */
const BASE: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'b',
  timeoutMs: 5_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 4,
  rollingCountTimeoutMs: 60_000,
  rollingCountBuckets: 1,
  resetTimeoutMs: 5_000,
  resetJitter: 0,
  capacity: 10,
  halfOpenProbes: 1,
  rampPercents: [],
  rampMs: 0,
};

const OPTS: GuardOptions = {
  abortOnTimeout: true,
  committed: () => false,
  abort: () => undefined,
  backendCalled: () => true,
};

const breakers: BackendBreaker[] = [];
function breaker(
  slice: Partial<CircuitBreakerSlice> = {},
  clock = new ManualClock(),
): BackendBreaker {
  const policies: Record<string, RoutePolicy> = {
    p: { locks: { circuitBreaker: { ...BASE, ...slice } } },
  };
  const plan = resolveBackends(policies).plans.get('b')!;
  const b = new BackendBreaker(plan, new BreakerMetrics(new MetricsService()), clock);
  breakers.push(b);
  return b;
}
afterEach(() => {
  for (const b of breakers.splice(0)) b.shutdown();
});

/** Starts a call held until `end()` is called (or ending after `ms`). */
function hold(b: BackendBreaker, a: Admission, tenant?: Tenant, ms?: number) {
  if (!a.admit) throw new Error(`refused: ${a.reason}`);
  let end!: () => void;
  const done = new Promise<string>((r) => {
    end = () => r('done');
    if (ms !== undefined) setTimeout(end, ms);
  });
  const g = b.guard(a, () => done, OPTS, tenant);
  return { end, verdict: g.verdict };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

const A: Tenant = { id: 'app-a' };
const B: Tenant = { id: 'app-b' };

describe(`${BackendBreaker.name} under overload`, () => {
  it('should cap calls in flight at the adaptive limit, below the fixed capacity', () => {
    const b = breaker({ adaptive: { initialLimit: 3 } });
    const calls = [0, 1, 2].map(() => hold(b, b.admit()));
    expect(b.admit()).toMatchObject({ admit: false, reason: 'busy' });
    expect(b.status().adaptive).toMatchObject({ limit: 3, minLimit: 1, maxLimit: 10, inFlight: 3 });
    for (const c of calls) c.end();
  });

  it('should share the adaptive limit fairly between apps: an app alone fills it, then yields to one waiting', async () => {
    const b = breaker({ adaptive: { initialLimit: 4 }, fairShare: true });
    const held = [0, 1, 2, 3].map(() => hold(b, b.admit(A), A));
    expect(b.admit(B)).toMatchObject({ admit: false, reason: 'busy' });
    held.pop()!.end();
    await tick(); // the freed slot is released once the call settled
    // A holds 3 of 4 while B waits: its share is 4 ÷ 2 = 2 (of the adaptive limit, not of capacity 10).
    expect(b.admit(A)).toMatchObject({ admit: false, reason: 'busy' });
    const fair = b.admit(B);
    expect(fair.admit).toBe(true);
    hold(b, fair, B).end();
    for (const h of held) h.end();
  });

  it('should let a call wait in order for a freed slot, and refuse at once past maxWaiting', async () => {
    const b = breaker({ capacity: 1, maxWaitMs: 60_000, maxWaiting: 1 });
    const first = hold(b, b.admit());
    const waiting = b.admitWaiting();
    expect(await b.admitWaiting()).toMatchObject({ admit: false, reason: 'busy' }); // queue full
    expect(b.status().stats.waiting).toBe(1);
    first.end();
    await tick(); // the freed slot is handed to the waiting call...
    expect(b.status().stats.inFlight).toBe(0);
    expect(b.admit()).toMatchObject({ admit: false, reason: 'busy' }); // ...and no newcomer takes it first
    const got = await waiting;
    expect(got).toMatchObject({ admit: true, waited: true });
    const second = hold(b, got);
    expect(b.status().stats).toMatchObject({ inFlight: 1, waiting: 0 });
    second.end();
    expect(await second.verdict).toBe('done');
  });

  it('should give up waiting after maxWaitMs, or when the caller goes away', async () => {
    const b = breaker({ capacity: 1, maxWaitMs: 20, maxWaiting: 10 });
    const first = hold(b, b.admit());
    expect(await b.admitWaiting()).toMatchObject({ admit: false, reason: 'busy' });
    const gone = new AbortController();
    const left = b.admitWaiting(undefined, gone.signal);
    gone.abort();
    expect(await left).toMatchObject({ admit: false, reason: 'busy' });
    expect(b.status().stats.waiting).toBe(0);
    first.end();
  });

  it('should open on slow successes at slowCallRatio, name the reason, and still answer the slow calls', async () => {
    const b = breaker({ slowCallMs: 30, slowCallRatio: 0.5, minimumVolume: 4 });
    for (let i = 0; i < 2; i++) await hold(b, b.admit(), undefined, 0).verdict;
    expect(await hold(b, b.admit(), undefined, 60).verdict).toBe('done');
    await tick();
    expect(b.phase).toBe('closed');
    expect(await hold(b, b.admit(), undefined, 60).verdict).toBe('done');
    await tick(); // the slow-call window counts after the caller got its answer
    expect(b.phase).toBe('open');
    expect(b.status()).toMatchObject({ phase: 'open', reason: 'slow_calls' });
    expect(b.status().stats.slowCalls).toBe(2);
  });

  it('should not open below slowCallRatio, and name `errors` when the error rate opens it', async () => {
    const b = breaker({ slowCallMs: 30, slowCallRatio: 0.5, minimumVolume: 4 });
    for (let i = 0; i < 3; i++) await hold(b, b.admit(), undefined, 0).verdict;
    await hold(b, b.admit(), undefined, 60).verdict;
    await tick();
    expect(b.phase).toBe('closed');
    const fail = new ProblemException(503, 'search_unavailable', 'down');
    for (let i = 0; i < 6; i++) {
      const a = b.admit();
      if (a.admit)
        await b.guard(a, () => Promise.reject(fail), OPTS).verdict.catch(() => undefined);
    }
    expect(b.status()).toMatchObject({ phase: 'open', reason: 'errors' });
  });

  it('should count a slow probe as a failed one: the circuit opens again, reason slow_calls', async () => {
    const clock = new ManualClock();
    const b = breaker({ slowCallMs: 30, slowCallRatio: 0.5, minimumVolume: 4 }, clock);
    for (let i = 0; i < 4; i++) await hold(b, b.admit(), undefined, 60).verdict;
    await tick();
    expect(b.status()).toMatchObject({ phase: 'open', reason: 'slow_calls' });
    clock.advance(5_000);
    const probe = b.admit();
    expect(probe).toMatchObject({ admit: true, probe: {} });
    expect(await hold(b, probe, undefined, 60).verdict).toBe('done');
    expect(b.status()).toMatchObject({ phase: 'open', reason: 'slow_calls' });
    clock.advance(5_000);
    await hold(b, b.admit(), undefined, 0).verdict; // a fast probe closes it (halfOpenProbes 1, no ramp)
    expect(b.phase).toBe('closed');
    expect(b.status().reason).toBeUndefined();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, CircuitBreakerSlice } from '../circuit-breaker.types.js';
import { BackendBreaker } from './backend-breaker.js';
import { resolveBackends } from './backend-plans.js';
import type { GuardOptions } from './guarded-call.js';

/**
 * A call that ended early because its caller went away (a stream whose client left or that the product cut, its
 * backend unfinished: `onCallerGone`) says nothing about the backend, however long it lasted: no latency sample, no
 * slow call, no failure, a neutral probe. Only calls whose backend finished (or failed) count.
 */
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
  slowCallMs: 30,
  slowCallRatio: 0.5,
  minimumVolume: 4,
  adaptive: { initialLimit: 8, windowMs: 0, windowSamples: 1 },
};

const breakers: BackendBreaker[] = [];
function breaker(clock = new ManualClock()): BackendBreaker {
  const policies: Record<string, RoutePolicy> = { p: { locks: { circuitBreaker: BASE } } };
  const plan = resolveBackends(policies).plans.get('b')!;
  const b = new BackendBreaker(plan, new BreakerMetrics(new MetricsService()), clock);
  breakers.push(b);
  return b;
}
afterEach(() => {
  for (const b of breakers.splice(0)) b.shutdown();
});

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

type End = 'finished' | 'caller_gone' | 'gone_after_backend_done';

/** One call that lasts `ms` (past slowCallMs when 60) and returns normally, ended as `end` says. */
function call(b: BackendBreaker, a: Admission, end: End, ms = 60): Promise<unknown> {
  if (!a.admit) throw new Error(`refused: ${a.reason}`);
  let gone = (): void => undefined;
  let done = (): void => undefined;
  const opts: GuardOptions = {
    abortOnTimeout: true,
    committed: () => true,
    abort: () => undefined,
    backendCalled: () => true,
    onBackendDone: (d) => void (done = d),
    onCallerGone: (g) => void (gone = g),
  };
  const work = async (): Promise<string> => {
    await new Promise((r) => setTimeout(r, ms));
    if (end === 'gone_after_backend_done') done();
    await tick();
    if (end !== 'finished') gone();
    return 'ended';
  };
  return b.guard(a, work, opts).verdict;
}

describe(`${BackendBreaker.name}: calls whose caller went away`, () => {
  it('should neither open the slow-call rule nor take a latency sample for long calls whose caller went away', async () => {
    const b = breaker();
    for (let i = 0; i < 6; i++) expect(await call(b, b.admit(), 'caller_gone')).toBe('ended');
    await tick();
    expect(b.status()).toMatchObject({ phase: 'closed', stats: { slowCalls: 0 } });
    expect(b.status().adaptive?.sampleRttMs).toBeUndefined();
    expect(b.status().adaptive?.limit).toBe(8);
    // The same calls with their backend finished are slow: samples taken, the slow-call rule opens.
    for (let i = 0; i < 4; i++) await call(b, b.admit(), 'finished');
    await tick();
    expect(b.status().adaptive?.sampleRttMs).toBeGreaterThanOrEqual(30);
    expect(b.status()).toMatchObject({ phase: 'open', reason: 'slow_calls' });
  });

  it('should still count a call whose backend was done (slow) before its caller went away', async () => {
    const b = breaker();
    for (let i = 0; i < 4; i++) await call(b, b.admit(), 'gone_after_backend_done');
    await tick();
    // Sampled and timed at the backend's end: slow calls, which open the slow-call rule.
    expect(b.status().adaptive?.sampleRttMs).toBeGreaterThanOrEqual(30);
    expect(b.status()).toMatchObject({ phase: 'open', reason: 'slow_calls' });
  });

  it('should take a probe whose caller went away as neutral: the next probe decides', async () => {
    const clock = new ManualClock();
    const b = breaker(clock);
    for (let i = 0; i < 4; i++) await call(b, b.admit(), 'finished');
    await tick();
    expect(b.status()).toMatchObject({ phase: 'open', reason: 'slow_calls' });
    clock.advance(5_000);
    const probe = b.admit();
    expect(probe).toMatchObject({ admit: true, probe: {} });
    await call(b, probe, 'caller_gone'); // slow, but it proves nothing: not a failed probe
    expect(b.phase).toBe('half_open');
    await call(b, b.admit(), 'finished', 0);
    expect(b.phase).toBe('closed');
  });
});

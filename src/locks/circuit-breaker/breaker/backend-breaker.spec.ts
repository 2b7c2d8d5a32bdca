import { afterEach, describe, expect, it } from 'vitest';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { ManualClock } from '../../../common/clock.js';
import { ProblemException } from '../../../common/problem.exception.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, CircuitBreakerSlice } from '../circuit-breaker.types.js';
import { BackendBreaker } from './backend-breaker.js';
import { resolveBackends } from './backend-plans.js';
import { BeforeBackendError, BreakerTimeoutError } from './call-outcome.js';
import type { GuardOptions } from './guarded-call.js';

const BASE: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'b',
  timeoutMs: 1_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 4,
  rollingCountTimeoutMs: 60_000,
  rollingCountBuckets: 1,
  resetTimeoutMs: 5_000,
  resetJitter: 0,
  capacity: 10,
  halfOpenProbes: 2,
  rampPercents: [50],
  rampMs: 10_000,
};

const clock = new ManualClock(1_800_000_000_000, [0.5]);

function plan(slice: Partial<CircuitBreakerSlice> = {}) {
  const policies: Record<string, RoutePolicy> = {
    p: { locks: { circuitBreaker: { ...BASE, ...slice } } },
  };
  return resolveBackends(policies).plans.get('b')!;
}

const breakers: BackendBreaker[] = [];
function breaker(slice: Partial<CircuitBreakerSlice> = {}): BackendBreaker {
  const b = new BackendBreaker(plan(slice), new BreakerMetrics(new MetricsService()), clock);
  breakers.push(b);
  return b;
}
afterEach(() => {
  for (const b of breakers.splice(0)) b.shutdown();
});

const OPTS: GuardOptions = {
  abortOnTimeout: true,
  committed: () => false,
  abort: () => undefined,
  backendCalled: () => true,
};

function admitted(a: Admission): Extract<Admission, { admit: true }> {
  if (!a.admit) throw new Error(`refused: ${a.reason}`);
  return a;
}

/** Runs one admitted call that resolves or rejects with `result`; resolves with how the breaker saw it. */
async function call(
  b: BackendBreaker,
  result: unknown,
  opts: GuardOptions = OPTS,
): Promise<unknown> {
  const g = b.guard(
    admitted(b.admit()),
    () => (result instanceof Error ? Promise.reject(result) : Promise.resolve(result)),
    opts,
  );
  return g.verdict.then(
    (v) => v,
    (e: unknown) => e,
  );
}

const fail = (): Error => new ProblemException(503, 'search_unavailable', 'down');

describe(BackendBreaker.name, () => {
  it('should not open before volumeThreshold calls, then open above the error threshold', async () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) await call(b, fail());
    expect(b.phase).toBe('closed');
    await call(b, fail());
    expect(b.phase).toBe('open');
    expect(b.admit()).toEqual({ admit: false, reason: 'open', retryAfterMs: 5_000 });
  });

  it('should never count client errors (4xx) as failures', async () => {
    const b = breaker();
    for (let i = 0; i < 20; i++)
      await call(b, new ProblemException(429, 'upstream_rejected', 'no'));
    for (let i = 0; i < 20; i++)
      await call(b, new ProblemException(400, 'validation_failed', 'bad'));
    expect(b.phase).toBe('closed');
    expect(b.status().stats).toMatchObject({ failures: 0, fires: 40, totalFailures: 0 });
  });

  it('should never count an error raised before the backend was called, whatever it is', async () => {
    const b = breaker();
    const before: GuardOptions = { ...OPTS, backendCalled: () => false };
    for (let i = 0; i < 20; i++) {
      const seen = await call(b, new RangeError('Maximum call stack size exceeded'), before);
      expect(seen).toBeInstanceOf(BeforeBackendError);
      expect((seen as BeforeBackendError).cause).toBeInstanceOf(RangeError);
    }
    expect(b.phase).toBe('closed');
    expect(b.status().stats).toMatchObject({ failures: 0, totalFailures: 0 });
    const after = breaker();
    for (let i = 0; i < 4; i++) await call(after, new RangeError('after the call started'));
    expect(after.phase).toBe('open');
  });

  it('should never start the work of a refused call', async () => {
    const b = breaker({ volumeThreshold: 1 });
    await call(b, fail());
    let started = 0;
    for (let i = 0; i < 10; i++) {
      const a = b.admit();
      if (a.admit) b.guard(a, () => Promise.resolve(started++), OPTS);
    }
    expect(started).toBe(0);
  });

  it('should abort a call that times out, answer at once, and hold its bulkhead slot until the work has stopped', async () => {
    const b = breaker({ timeoutMs: 30, capacity: 1 });
    let abortedWith: unknown;
    let finish!: () => void;
    const work = new Promise<string>((resolve) => (finish = () => resolve('late')));
    const g = b.guard(admitted(b.admit()), () => work, {
      ...OPTS,
      abort: (r) => (abortedWith = r),
    });
    await expect(g.verdict).rejects.toBeInstanceOf(BreakerTimeoutError);
    expect(abortedWith).toBeInstanceOf(DOMException);
    expect((abortedWith as DOMException).name).toBe('TimeoutError');
    expect(b.admit()).toEqual({ admit: false, reason: 'busy', retryAfterMs: 1_000 });
    expect(b.status().stats).toMatchObject({ inFlight: 1, totalTimeouts: 1, failures: 1 });
    finish();
    await work;
    await new Promise((r) => setImmediate(r));
    expect(b.status().stats.inFlight).toBe(0);
    expect(b.admit().admit).toBe(true);
  });

  it('should count a timeout in shadow mode without aborting the call', async () => {
    const b = breaker({ timeoutMs: 20 });
    let aborted = false;
    const g = b.guard(
      admitted(b.admit()),
      () => new Promise((r) => setTimeout(() => r('done'), 60)),
      { ...OPTS, abortOnTimeout: false, abort: () => (aborted = true) },
    );
    await expect(g.verdict).rejects.toBeInstanceOf(BreakerTimeoutError);
    await expect(g.work).resolves.toBe('done');
    expect(aborted).toBe(false);
  });

  it('should not time out a call whose reply is already committed (a stream under way)', async () => {
    const b = breaker({ timeoutMs: 10 });
    const g = b.guard(
      admitted(b.admit()),
      () => new Promise((r) => setTimeout(() => r('streamed'), 40)),
      { ...OPTS, committed: () => true },
    );
    await expect(g.verdict).resolves.toBe('streamed');
  });

  it('should probe after the reset timeout, ramp, close, and start the ramp with a clean window', async () => {
    const b = breaker({ volumeThreshold: 4 });
    for (let i = 0; i < 4; i++) await call(b, fail());
    expect(b.phase).toBe('open');
    clock.advance(5_000);
    expect(await call(b, 'ok')).toBe('ok');
    expect(b.phase).toBe('half_open');
    expect(await call(b, 'ok')).toBe('ok');
    expect(b.phase).toBe('recovering');
    expect(b.status().stats).toMatchObject({ fires: 0, failures: 0, admittedPercent: 50 });
    // Three failures in a fresh window stay under the volume threshold: the old four are forgotten.
    let admittedCalls = 0;
    while (admittedCalls < 3) {
      const a = b.admit();
      if (!a.admit) continue;
      admittedCalls++;
      await b.guard(a, () => Promise.reject(fail()), OPTS).verdict.catch(() => undefined);
    }
    expect(b.phase).toBe('recovering');
    clock.advance(10_000);
    expect(b.admit().admit).toBe(true);
    expect(b.phase).toBe('closed');
  });

  it('should reopen when a probe fails', async () => {
    const b = breaker({ volumeThreshold: 1 });
    await call(b, fail());
    clock.advance(5_000);
    await call(b, fail());
    expect(b.phase).toBe('open');
    expect(b.status().stats.totalProbes).toBe(1);
  });

  it('should follow forces and resets from the policy, and keep its phase when options change', async () => {
    const b = breaker({ volumeThreshold: 1 });
    b.apply(plan({ volumeThreshold: 1, force: 'open' }));
    expect(b.admit()).toMatchObject({ admit: false, reason: 'forced_open' });
    expect(b.status()).toMatchObject({ state: 'open', forced: 'open', phase: 'forced_open' });
    b.apply(plan({ volumeThreshold: 1, force: 'closed' }));
    for (let i = 0; i < 5; i++) await call(b, fail());
    expect(b.phase).toBe('forced_closed');
    b.apply(plan({ volumeThreshold: 1 }));
    expect(b.phase).toBe('closed');
    await call(b, fail());
    expect(b.phase).toBe('open');
    b.apply(plan({ volumeThreshold: 7, timeoutMs: 50 }));
    expect(b.phase).toBe('open');
    expect(b.options).toMatchObject({ volumeThreshold: 7, timeoutMs: 50 });
    b.apply(plan({ volumeThreshold: 7, resetAt: clock.now() }));
    expect(b.phase).toBe('closed');
    expect(b.status().stats.fires).toBe(0);
  });

  it('should let a force expire by itself at forceUntil', () => {
    const b = breaker();
    b.apply(plan({ force: 'open', forceUntil: clock.now() + 2_500 }));
    expect(b.admit()).toEqual({ admit: false, reason: 'forced_open', retryAfterMs: 2_500 });
    clock.advance(2_500);
    expect(b.admit()).toMatchObject({ admit: true, probe: {} });
    expect(b.phase).toBe('half_open');
  });
});

import { HttpException } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, CircuitBreakerSlice } from '../circuit-breaker.types.js';
import { BackendBreaker, type Tenant } from './backend-breaker.js';
import { resolveBackends } from './backend-plans.js';
import { RECLAIMED } from './held-calls.js';

/** `reclaimAfterMs`: a slot held long by an app over its fair share is taken back for an app within its share. */
const BASE: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'b',
  timeoutMs: 600_000,
  volumeThreshold: 1_000,
  resetJitter: 0,
  capacity: 4,
  fairShare: true,
  rampPercents: [],
  rampMs: 0,
};

const breakers: BackendBreaker[] = [];
function breaker(slice: Partial<CircuitBreakerSlice>, clock: ManualClock): BackendBreaker {
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

/** A call that holds its slot until it is aborted (as the product ends a stream whose signal aborted). */
function endless(b: BackendBreaker, a: Admission, tenant: Tenant, failOnAbort = false) {
  if (!a.admit) throw new Error(`refused: ${a.reason}`);
  const reasons: unknown[] = [];
  let end!: () => void;
  // As inference does, a call aborted by the breaker may fail (its upstream call aborted: 504).
  const done = new Promise<string>((resolve, reject) => {
    end = () => (failOnAbort ? reject(new HttpException('aborted', 504)) : resolve('cut'));
  });
  const abort = (reason: unknown): void => {
    reasons.push(reason);
    end();
  };
  const opts = { abortOnTimeout: true, committed: () => true, abort, backendCalled: () => true };
  b.guard(a, () => done, opts, tenant);
  return { reasons };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const A: Tenant = { id: 'app-a' };
const B: Tenant = { id: 'app-b' };

describe('BackendBreaker slot reclaim (reclaimAfterMs)', () => {
  it('should stop the longest-held call of an app over its share once it is held reclaimAfterMs, when another app finds no slot', async () => {
    const clock = new ManualClock();
    const b = breaker({ reclaimAfterMs: 10_000 }, clock);
    // A, alone, takes every slot with calls that never end (endless streams), one a second.
    const calls = [0, 1, 2, 3].map(() => {
      const c = endless(b, b.admit(A), A);
      clock.advance(1_000);
      return c;
    });
    expect(b.admit(B)).toMatchObject({ admit: false, reason: 'busy' });
    expect(calls.flatMap((c) => c.reasons)).toEqual([]); // held 1–4 s: too young to take back

    clock.advance(6_000); // the oldest has been held 10 s
    expect(b.admit(B)).toMatchObject({ admit: false, reason: 'busy' }); // its slot frees once the call wound down
    expect(calls[0]!.reasons).toHaveLength(1);
    expect(calls[0]!.reasons[0]).toMatchObject({ name: 'AbortError', message: RECLAIMED });
    expect(calls.slice(1).flatMap((c) => c.reasons)).toEqual([]); // one call per refusal

    await tick();
    expect(b.admit(B).admit).toBe(true); // B gets the freed slot
    expect(b.admit(A)).toMatchObject({ admit: false, reason: 'busy' }); // A is over its share: no new slot
    expect(calls.slice(1).flatMap((c) => c.reasons)).toEqual([]); // and A's refusal takes nothing back
  });

  it('should not take the hog below its share when refusals come faster than stopped calls wind down', () => {
    const clock = new ManualClock();
    const b = breaker({ reclaimAfterMs: 1_000 }, clock);
    const calls = [0, 1, 2, 3].map(() => endless(b, b.admit(A), A));
    clock.advance(1_000);
    // Three refusals in one turn: the stopped calls still hold their slots, but no longer count for A.
    for (let i = 0; i < 3; i++) expect(b.admit(B)).toMatchObject({ admit: false, reason: 'busy' });
    expect(calls.filter((c) => c.reasons.length > 0)).toHaveLength(2); // A keeps its share of 2
  });

  it('should count a call stopped for its slot as a caller gone, never as a failure of the backend', async () => {
    const clock = new ManualClock();
    // The first failure in the window would open the circuit.
    const b = breaker(
      { reclaimAfterMs: 1, volumeThreshold: 1, errorThresholdPercentage: 1 },
      clock,
    );
    const calls = [0, 1, 2, 3].map(() => endless(b, b.admit(A), A, true));
    clock.advance(1_000);
    expect(b.admit(B)).toMatchObject({ admit: false, reason: 'busy' });
    expect(calls[0]!.reasons).toHaveLength(1);
    await tick();
    expect(b.phase).toBe('closed');
    expect(b.admit(B).admit).toBe(true);
  });

  it('should never take a slot back with reclaimAfterMs 0 (the default)', () => {
    const clock = new ManualClock();
    const b = breaker({}, clock);
    const calls = [0, 1, 2, 3].map(() => endless(b, b.admit(A), A));
    clock.advance(3_600_000);
    expect(b.admit(B)).toMatchObject({ admit: false, reason: 'busy' });
    expect(calls.flatMap((c) => c.reasons)).toEqual([]);
  });

  it('should take nothing back for an app already at its share, nor from apps within theirs', () => {
    const clock = new ManualClock();
    const b = breaker({ reclaimAfterMs: 1_000 }, clock);
    // A and B hold two each: their share of 4 between two apps.
    const calls = [A, B, A, B].map((t) => endless(b, b.admit(t), t));
    clock.advance(60_000);
    expect(b.admit(B)).toMatchObject({ admit: false, reason: 'busy' }); // B asks for a third
    expect(b.admit(A)).toMatchObject({ admit: false, reason: 'busy' });
    expect(calls.flatMap((c) => c.reasons)).toEqual([]);
  });
});

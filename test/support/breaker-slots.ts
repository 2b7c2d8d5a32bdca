import { afterEach, beforeEach, vi } from 'vitest';
import type { Clock } from '../../src/common/clock.js';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { BreakerMetrics } from '../../src/locks/circuit-breaker/circuit-breaker.metrics.js';
import type {
  Admission,
  CircuitBreakerSlice,
} from '../../src/locks/circuit-breaker/circuit-breaker.types.js';
import {
  BackendBreaker,
  type Tenant,
} from '../../src/locks/circuit-breaker/breaker/backend-breaker.js';
import { resolveBackends } from '../../src/locks/circuit-breaker/breaker/backend-plans.js';

/** The slot specs' backend `b`: 4 slots shared fairly, calls taken back after 10 s, a queue wait of 30 s. */
export const SLOTS_BASE: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'b',
  timeoutMs: 600_000,
  volumeThreshold: 1_000,
  resetJitter: 0,
  capacity: 4,
  fairShare: true,
  rampPercents: [],
  rampMs: 0,
  reclaimAfterMs: 10_000,
  maxWaitMs: 30_000,
};

/** A held call: the reasons it was aborted with (none while it holds its slot). */
export interface HeldCall {
  reasons: unknown[];
}

/**
 * For a spec file of the breaker's slots (slot-reclaim-*.spec.ts): registers that file's hooks — fake `Date` and
 * `setTimeout` (so fake timers drive both the clock and the breaker's timers; `setImmediate` stays real for ticks),
 * and, after each test, every held call ended and every breaker shut down — and gives:
 * - `breaker(slice)`: backend `b`'s breaker of `base` with `slice` over it;
 * - `held(b, tenant, hangs, a)`: a call admitted as `a` (by default `b.admit(tenant)`) that holds its slot until it
 *   is aborted (as the product ends a stream whose signal aborted) or, with `hangs`, for good: its backend ignores
 *   the abort.
 */
export function breakerSlots(base: CircuitBreakerSlice = SLOTS_BASE) {
  const clock: Clock = { now: () => Date.now(), random: () => 0.5 };
  const breakers: BackendBreaker[] = [];
  const ends: (() => void)[] = [];
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => {
    for (const end of ends.splice(0)) end();
    for (const b of breakers.splice(0)) b.shutdown();
    vi.useRealTimers();
  });
  const breaker = (slice: Partial<CircuitBreakerSlice> = {}): BackendBreaker => {
    const policies: Record<string, RoutePolicy> = {
      p: { locks: { circuitBreaker: { ...base, ...slice } } },
    };
    const plan = resolveBackends(policies).plans.get('b')!;
    const b = new BackendBreaker(plan, new BreakerMetrics(new MetricsService()), clock);
    breakers.push(b);
    return b;
  };
  const held = (
    b: BackendBreaker,
    tenant: Tenant,
    hangs = false,
    a: Admission = b.admit(tenant),
  ): HeldCall => {
    if (!a.admit) throw new Error(`refused: ${a.reason}`);
    const reasons: unknown[] = [];
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    ends.push(end);
    const abort = (reason: unknown): void => void (reasons.push(reason), hangs || end());
    const opts = { abortOnTimeout: true, committed: () => true, abort, backendCalled: () => true };
    b.guard(a, () => done, opts, tenant);
    return { reasons };
  };
  return { breaker, held };
}

/** One turn of the real event loop. */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
/** Settles what the timers started (their promises), then what that started. */
export const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await tick();
};
/** How many of `calls` were aborted. */
export const stopped = (calls: HeldCall[]): number => calls.filter((c) => c.reasons.length).length;

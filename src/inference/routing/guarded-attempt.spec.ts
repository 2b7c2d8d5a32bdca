import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import type { RoutePolicy } from '../../config/policy.types.js';
import { BackendBreaker } from '../../locks/circuit-breaker/breaker/backend-breaker.js';
import { resolveBackends } from '../../locks/circuit-breaker/breaker/backend-plans.js';
import { BreakerMetrics } from '../../locks/circuit-breaker/circuit-breaker.metrics.js';
import type { CircuitBreakerSlice } from '../../locks/circuit-breaker/circuit-breaker.types.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import type { InferenceCall } from '../inference-backend.js';
import { guardedAttempt } from './guarded-attempt.js';

/** One model alias's upstream breaker: a slow call whose caller went away is no slow call, for it nor the route. */
const SLICE: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'up',
  timeoutMs: 5_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 4,
  rollingCountTimeoutMs: 60_000,
  rollingCountBuckets: 1,
  resetTimeoutMs: 5_000,
  resetJitter: 0,
  capacity: 10,
  slowCallMs: 20,
  slowCallRatio: 0.5,
  minimumVolume: 2,
};

const breakers: BackendBreaker[] = [];
afterEach(() => {
  for (const b of breakers.splice(0)) b.shutdown();
});

function breaker(): BackendBreaker {
  const policies: Record<string, RoutePolicy> = { p: { locks: { circuitBreaker: SLICE } } };
  const plan = resolveBackends(policies).plans.get('up')!;
  const b = new BackendBreaker(plan, new BreakerMetrics(new MetricsService()), new ManualClock());
  breakers.push(b);
  return b;
}

describe(guardedAttempt.name, () => {
  it("should pass a caller gone to the upstream's breaker and to the route's", async () => {
    const b = breaker();
    const told: string[] = [];
    const call: InferenceCall = {
      signal: new AbortController().signal,
      clientGone: new AbortController().signal,
      callerGone: () => void told.push('route'),
    };
    for (let i = 0; i < 2; i++) {
      const a = b.admit();
      if (!a.admit) throw new Error('refused');
      await guardedAttempt(b, a, call, undefined, async (c) => {
        await new Promise((r) => setTimeout(r, 40)); // past slowCallMs
        c.callerGone?.();
      });
    }
    await new Promise((r) => setImmediate(r));
    expect(told).toEqual(['route', 'route']);
    expect(b.status()).toMatchObject({ phase: 'closed', stats: { slowCalls: 0 } });
  });
});

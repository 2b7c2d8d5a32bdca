import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../../common/clock.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, CircuitBreakerSlice } from '../circuit-breaker.types.js';
import { BackendBreaker, type Tenant } from './backend-breaker.js';
import { resolveBackends } from './backend-plans.js';
import { STOP_GRACE_MS } from './slot-reclaim.js';

/**
 * SlotReclaim when a refusal that does not queue (forRefusal) stops a call whose backend ignores the abort while
 * another app's calls wait: the stop counts as paid to them for STOP_GRACE_MS only, so the one timer fires when that
 * grace ends, whether it was armed for a later mark or not armed at all (nothing was due), and takes the next slot
 * back. The refused app is of tier `pro` (weight 2): it lowers the hog's share by two slots, one refusal stops one
 * call, so the hog stays above its share. Fake timers drive the clock and the timers.
 */
const BASE: CircuitBreakerSlice = {
  mode: 'enforce',
  backend: 'b',
  timeoutMs: 600_000,
  volumeThreshold: 1_000,
  resetJitter: 0,
  capacity: 8,
  fairShare: true,
  shareWeights: { pro: 2 },
  rampPercents: [],
  rampMs: 0,
  reclaimAfterMs: 10_000,
  maxWaitMs: 30_000,
};
const clock: Clock = { now: () => Date.now(), random: () => 0.5 };

const breakers: BackendBreaker[] = [];
const ends: (() => void)[] = [];
function breaker(): BackendBreaker {
  const policies: Record<string, RoutePolicy> = { p: { locks: { circuitBreaker: BASE } } };
  const plan = resolveBackends(policies).plans.get('b')!;
  const b = new BackendBreaker(plan, new BreakerMetrics(new MetricsService()), clock);
  breakers.push(b);
  return b;
}
beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
afterEach(() => {
  for (const end of ends.splice(0)) end();
  for (const b of breakers.splice(0)) b.shutdown();
  vi.useRealTimers();
});

/** A call holding its slot until aborted, or (`hangs`) for good: its backend ignores the abort. */
function held(b: BackendBreaker, tenant: Tenant, hangs = false, a: Admission = b.admit(tenant)) {
  if (!a.admit) throw new Error(`refused: ${a.reason}`);
  const reasons: unknown[] = [];
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  ends.push(end);
  const abort = (reason: unknown): void => void (reasons.push(reason), hangs || end());
  const opts = { abortOnTimeout: true, committed: () => true, abort, backendCalled: () => true };
  b.guard(a, () => done, opts, tenant);
  return { reasons };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await tick();
};
const [A, B]: Tenant[] = [{ id: 'app-a' }, { id: 'app-b' }];
const PRO: Tenant = { id: 'app-p', tier: 'pro' };
const stopped = (calls: { reasons: unknown[] }[]) => calls.filter((c) => c.reasons.length).length;

describe('SlotReclaim after a refusal that does not queue stops a hung call', () => {
  for (const armed of [true, false]) {
    it(`should take the next slot back for the waiting calls when its grace ends (timer armed: ${armed})`, async () => {
      const b = breaker();
      // A takes every slot with calls that ignore the abort, but for its 6th (and its 1st: B holds that slot then).
      const hog = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => held(b, A, !(i === 5 || (armed && i === 0))));
      vi.advanceTimersByTime(1_000);
      const served: Admission[] = [];
      for (let i = 0; i < 2; i++) void b.admitWaiting(B).then((a) => served.push(a)); // B's share: 4
      vi.advanceTimersByTime(9_000); // the mark: two of A's calls stopped for B's two waiting ones
      await settle();
      expect(served).toHaveLength(armed ? 1 : 0);
      const fair = served.map((a) => held(b, B, false, a)); // held from 10 s: its mark is at 20 s
      vi.advanceTimersByTime(3_500); // a stop per grace until A, less its hung calls, is at its share (4)
      expect(stopped(hog)).toBe(4); // the reclaim timer: armed for B's call's mark (20 s), or not at all
      const before = vi.getTimerCount();

      // At 13.5 s PRO's refusal (it does not queue) lowers A's share to 2: it stops one more of A's calls (it hangs).
      expect(b.admit(PRO)).toMatchObject({ admit: false, reason: 'busy' });
      expect(stopped(hog)).toBe(5);
      expect(vi.getTimerCount()).toBe(before + (armed ? 0 : 1)); // one timer, for the stop's grace
      vi.advanceTimersByTime(STOP_GRACE_MS - 1); // that stop still counts as paid to B's waiting call
      expect(stopped(hog)).toBe(5);
      vi.advanceTimersByTime(1); // its grace ends: B is owed a slot again, and A holds 3 (share 2)
      expect(hog[5]!.reasons).toHaveLength(1);
      expect(stopped(hog)).toBe(6);
      await settle();
      expect(served).toHaveLength(armed ? 2 : 1);
      expect(served.at(-1)).toMatchObject({ admit: true, waited: true });
      expect(stopped(fair)).toBe(0);
      vi.advanceTimersByTime(60_000); // A at its share of 4 again (PRO left): nothing more is taken
      expect(stopped(hog)).toBe(6);
    });
  }
});

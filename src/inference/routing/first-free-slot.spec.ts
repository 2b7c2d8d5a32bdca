import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import type { RoutePolicy } from '../../config/policy.types.js';
import { BackendBreaker } from '../../locks/circuit-breaker/breaker/backend-breaker.js';
import { resolveBackends } from '../../locks/circuit-breaker/breaker/backend-plans.js';
import type { GuardOptions } from '../../locks/circuit-breaker/breaker/guarded-call.js';
import { BreakerMetrics } from '../../locks/circuit-breaker/circuit-breaker.metrics.js';
import type {
  Admission,
  CircuitBreakerSlice,
} from '../../locks/circuit-breaker/circuit-breaker.types.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { type BusyUpstream, firstFreeSlot } from './first-free-slot.js';
import type { UpstreamRoute } from './model-routes.types.js';

const SLICE: CircuitBreakerSlice = {
  mode: 'enforce',
  volumeThreshold: 1_000,
  resetJitter: 0,
  capacity: 1,
  fairShare: false,
  maxWaitMs: 60_000, // never runs out here: the tests end every wait themselves
  maxWaiting: 10,
  maxWaitingPerApp: 2,
};
const OPTS: GuardOptions = {
  abortOnTimeout: true,
  committed: () => false,
  abort: () => undefined,
  backendCalled: () => true,
};

const made: BackendBreaker[] = [];
/** Two upstreams, one slot each, both taken by a call that ends when told. */
function twoFull(): { ups: BusyUpstream[]; end: (i: number) => void } {
  const ends: (() => void)[] = [];
  const ups = ['x', 'y'].map((name) => {
    const policies: Record<string, RoutePolicy> = {
      p: { locks: { circuitBreaker: { ...SLICE, backend: name } } },
    };
    const plan = resolveBackends(policies).plans.get(name)!;
    const breaker = new BackendBreaker(plan, new BreakerMetrics(new MetricsService()), clock);
    made.push(breaker);
    const a = breaker.admit();
    if (!a.admit) throw new Error('refused');
    breaker.guard(a, () => new Promise<void>((r) => ends.push(r)), OPTS);
    return { u: { name } as UpstreamRoute, breaker };
  });
  return { ups, end: (i) => ends[i]!() };
}
const clock = new ManualClock();
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const never = new AbortController().signal;
afterEach(() => {
  for (const b of made.splice(0)) b.shutdown();
});

/** Runs a call on a slot it was handed, to the end. */
async function use(up: BusyUpstream, ticket: Admission): Promise<void> {
  if (!ticket.admit) throw new Error('refused');
  await up.breaker.guard(ticket, () => Promise.resolve(), OPTS).verdict;
}

describe(firstFreeSlot.name, () => {
  it('should wait on every full upstream at once and take the first slot freed, leaving the other queue', async () => {
    const { ups, end } = twoFull();
    const waiting = firstFreeSlot(ups, { id: 'app-a' }, never);
    await tick();
    expect(ups.map((up) => up.breaker.status().stats.waiting)).toEqual([1, 1]);
    end(1); // y's call ends first
    const got = await waiting;
    expect(got).toMatchObject({ admit: true, ticket: { waited: true } });
    if (!got.admit) return;
    expect(got.up).toBe(ups[1]);
    expect(ups.map((up) => up.breaker.status().stats.waiting)).toEqual([0, 0]);
    await use(got.up, got.ticket);
    end(0);
  });

  it('should pass a slot handed over at the same moment on to the next waiting call', async () => {
    const { ups, end } = twoFull();
    const first = firstFreeSlot(ups, { id: 'app-a' }, never);
    const second = firstFreeSlot(ups, { id: 'app-b' }, never); // behind the first on both
    await tick();
    end(0);
    end(1); // both slots are freed before the first call has taken either
    const [a, b] = await Promise.all([first, second]);
    expect(a.admit && b.admit).toBe(true);
    if (!a.admit || !b.admit) return;
    expect(a.up).not.toBe(b.up); // the one slot the first call declined went to the second
    await Promise.all([use(a.up, a.ticket), use(b.up, b.ticket)]);
    expect(ups.map((up) => up.breaker.status().stats)).toMatchObject([
      { inFlight: 0, waiting: 0 },
      { inFlight: 0, waiting: 0 },
    ]);
  });

  it("should refuse an app past its lane with where it stood while another app's call still waits", async () => {
    const { ups, end } = twoFull();
    const gone = new AbortController();
    const lane = [0, 1].map(() => firstFreeSlot(ups, { id: 'app-a' }, gone.signal));
    const refused = await firstFreeSlot(ups, { id: 'app-a' }, never);
    expect(refused).toMatchObject({
      admit: false,
      reason: 'busy',
      retryAfterMs: 60_000,
      queue: { why: 'app_full', length: 2, position: 3 },
    });
    const other = firstFreeSlot(ups, { id: 'app-b' }, never);
    await tick();
    expect(ups[0]!.breaker.status().stats.waiting).toBe(3);
    gone.abort(); // app A's calls go away: B's is next
    expect(await Promise.all(lane)).toMatchObject([{ admit: false }, { admit: false }]);
    end(0);
    const got = await other;
    expect(got).toMatchObject({ admit: true, up: ups[0] });
    if (got.admit) await use(got.up, got.ticket);
    end(1);
  });
});

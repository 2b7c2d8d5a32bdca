import { describe, expect, it, vi } from 'vitest';
import { breakerSlots, settle, stopped } from '../../../../test/support/breaker-slots.js';
import type { Admission } from '../circuit-breaker.types.js';
import type { Tenant } from './backend-breaker.js';
import { STOP_GRACE_MS } from './slot-reclaim.js';

/**
 * SlotReclaim when a stopped call's backend ignores the abort (the call never settles): it counts as paid to the
 * waiting calls for STOP_GRACE_MS only, keeps its slot, and keeps its app from losing more than its excess. Fake
 * timers drive the clock and the timers (`setImmediate` stays real for ticks).
 */
const { breaker, held } = breakerSlots();
const [A, B, C]: Tenant[] = [{ id: 'app-a' }, { id: 'app-b' }, { id: 'app-c' }];

describe('SlotReclaim when a stopped call hangs (STOP_GRACE_MS)', () => {
  it('should take another slot back from the hog once a stopped call hangs past the grace, keeping the hung one counted', async () => {
    const b = breaker();
    const hog = [held(b, A, true), held(b, A), held(b, A), held(b, A)]; // A's oldest ignores its abort
    vi.advanceTimersByTime(1_000);
    let served: Admission | undefined;
    void b.admitWaiting(B).then((a) => (served = a));
    vi.advanceTimersByTime(9_000); // the mark: A's oldest is stopped, and hangs
    await settle();
    expect(stopped(hog)).toBe(1);
    expect(served).toBeUndefined();

    vi.advanceTimersByTime(STOP_GRACE_MS); // it no longer counts as a slot on its way to B
    expect(stopped(hog)).toBe(2);
    await settle();
    expect(served).toMatchObject({ admit: true, waited: true });
    expect(b.status().stats.inFlight).toBe(3); // the hung call still holds its slot (the backend works for it)
    held(b, B, false, served);
    expect(b.status().stats.inFlight).toBe(4);
    expect(b.admit(C)).toMatchObject({ admit: false, reason: 'busy' }); // the limit counts it
  });

  it('should count a stopped call as paid within the grace: a mark reached meanwhile takes nothing more', async () => {
    const b = breaker();
    const hog = [held(b, A, true), held(b, A), held(b, A)];
    vi.advanceTimersByTime(STOP_GRACE_MS / 2);
    hog.push(held(b, A)); // its mark falls within the grace of the first stop
    let served: Admission | undefined;
    void b.admitWaiting(B).then((a) => (served = a));
    // Marks at 10 s (one stop) and at 10 s + half the grace (nothing more owed); up to the grace's last ms.
    vi.advanceTimersByTime(10_000 + STOP_GRACE_MS / 2 - 1);
    await settle();
    expect(stopped(hog)).toBe(1); // one waiting call, one stop on its way: still paid
    expect(served).toBeUndefined();
  });

  it('should re-arm its one timer for a grace ending before the armed mark, and leave none behind', async () => {
    const b = breaker();
    const hog = [held(b, A, true), held(b, A), held(b, A)];
    vi.advanceTimersByTime(15_000);
    hog.push(held(b, A));
    const before = vi.getTimerCount(); // the held calls' own timeouts
    const hogWaits = b.admitWaiting(A); // alone, A may wait: the timer is armed for its last call's mark (25 s)
    vi.advanceTimersByTime(1_000);
    let served: Admission | undefined;
    void b.admitWaiting(B).then((a) => (served = a)); // its refusal stops A's oldest (it hangs)
    expect(stopped(hog)).toBe(1);
    expect(vi.getTimerCount()).toBe(before + 3); // two maxWaitMs, one reclaim timer (not two)

    vi.advanceTimersByTime(STOP_GRACE_MS); // the grace ends long before the armed mark
    expect(stopped(hog)).toBe(2);
    await settle();
    expect(served).toMatchObject({ admit: true, waited: true });
    expect(await hogWaits).toMatchObject({ admit: false, reason: 'busy' });
    expect(vi.getTimerCount()).toBe(before - 1); // one held call settled; no wait, no reclaim timer
    vi.advanceTimersByTime(60_000);
    expect(stopped(hog)).toBe(2);
  });

  it('should never take a hog whose calls hang below its share, nor anything of an app within it, nor poll', async () => {
    const b = breaker();
    const hog = [held(b, A, true), held(b, A, true), held(b, A, true)]; // every call ignores its abort
    const fair = held(b, C); // C holds 1: its share of 4 among A, B and C
    const before = vi.getTimerCount();
    const gone = new AbortController();
    const waits = [0, 1].map(() => b.admitWaiting(B, gone.signal));
    vi.advanceTimersByTime(10_000); // two owed: two of A's calls stopped, A keeps its share of 1
    expect(stopped(hog)).toBe(2);
    expect(vi.getTimerCount()).toBe(before + 3); // two maxWaitMs, the grace's end

    vi.advanceTimersByTime(STOP_GRACE_MS); // nothing paid any more, but nothing left to take
    expect([stopped(hog), stopped([fair])]).toEqual([2, 0]);
    expect(vi.getTimerCount()).toBe(before + 2); // no timer while nothing is due
    expect(b.status().stats.inFlight).toBe(4);
    gone.abort();
    for (const w of waits) expect(await w).toMatchObject({ admit: false });
    expect(vi.getTimerCount()).toBe(before);
    vi.advanceTimersByTime(60_000);
    expect([stopped(hog), stopped([fair])]).toEqual([2, 0]);
  });
});

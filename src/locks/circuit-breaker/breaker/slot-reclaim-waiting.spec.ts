import { describe, expect, it, vi } from 'vitest';
import { breakerSlots, settle, stopped } from '../../../../test/support/breaker-slots.js';
import type { Admission } from '../circuit-breaker.types.js';
import type { Tenant } from './backend-breaker.js';
import { RECLAIMED } from './held-calls.js';

/**
 * `reclaimAfterMs` for calls already waiting in the queue: a held call of an app over its share that reaches the
 * mark while a call of an app within its share waits is taken back for it (SlotReclaim's timer). Fake timers
 * drive both the clock and the timers (`Date` and `setTimeout` are faked; `setImmediate` stays real for ticks).
 */
const { breaker, held } = breakerSlots();
const A: Tenant = { id: 'app-a' };
const B: Tenant = { id: 'app-b' };

describe('SlotReclaim for waiting calls (reclaimAfterMs)', () => {
  it("should take the hog's oldest slot back for a call waiting when it reaches the mark, and hand it to that call, not the hog's", async () => {
    const b = breaker();
    const hog = [0, 1, 2, 3].map(() => held(b, A)); // A, alone, takes every slot
    const hogWaits = b.admitWaiting(A); // alone, A may wait: it stands first in the queue
    vi.advanceTimersByTime(2_000);
    let served: Admission | undefined;
    void b.admitWaiting(B).then((a) => (served = a)); // refused, nothing held 10 s yet: it waits
    vi.advanceTimersByTime(7_999);
    await settle();
    expect(stopped(hog)).toBe(0);
    expect(served).toBeUndefined();

    vi.advanceTimersByTime(1); // A's oldest call reaches 10 s (B has waited 8 s, longer than a refusal counts)
    expect(hog[0]!.reasons).toEqual([expect.objectContaining({ message: RECLAIMED })]);
    expect(stopped(hog)).toBe(1); // one call for one waiting call
    await settle();
    expect(served).toMatchObject({ admit: true, waited: true }); // the freed slot went to B
    expect(await hogWaits).toMatchObject({ admit: false, reason: 'busy' }); // not to A, first in line but over
    expect(b.status().stats.waiting).toBe(0);
  });

  it('should take a slot back at once for a call that queues after the mark, and hand it to that call', async () => {
    const b = breaker();
    const hog = [0, 1, 2, 3].map(() => held(b, A));
    vi.advanceTimersByTime(10_000);
    const waits = b.admitWaiting(B); // its refusal stops A's oldest call; it waits for the freed slot
    expect(stopped(hog)).toBe(1);
    await settle();
    expect(await waits).toMatchObject({ admit: true, waited: true });
  });

  it('should take back one call per waiting call, never the hog below its share, even before the stopped ones wound down', async () => {
    const b = breaker();
    const hog = [0, 1, 2, 3].map(() => held(b, A));
    vi.advanceTimersByTime(1_000);
    const waits = [0, 1, 2].map(() => b.admitWaiting(B)); // B queues 3 (its share is 2)
    vi.advanceTimersByTime(9_000); // all four of A's calls reach the mark at once
    expect(stopped(hog)).toBe(2); // A keeps its share of 2
    await settle();
    expect(await waits[0]!).toMatchObject({ admit: true });
    expect(await waits[1]!).toMatchObject({ admit: true });
    vi.advanceTimersByTime(60_000); // B's third waits out its maxWaitMs: nothing more is taken
    expect(await waits[2]!).toMatchObject({ admit: false, queue: { why: 'timeout' } });
    expect(stopped(hog)).toBe(2);
  });

  it('should leave no timer behind when the queue empties before the mark (the caller went away)', async () => {
    const b = breaker();
    const hog = [0, 1, 2, 3].map(() => held(b, A));
    const before = vi.getTimerCount(); // the held calls' own timeouts
    const gone = new AbortController();
    const waits = b.admitWaiting(B, gone.signal);
    expect(vi.getTimerCount()).toBe(before + 2); // its maxWaitMs, and the mark of A's oldest call
    gone.abort();
    expect(await waits).toMatchObject({ admit: false });
    expect(vi.getTimerCount()).toBe(before);
    vi.advanceTimersByTime(60_000);
    expect(stopped(hog)).toBe(0);
  });
});

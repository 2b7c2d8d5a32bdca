import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { OUTBOUND_DEFAULTS } from '../outbound.settings.js';
import type { Claimed, Lease, OutboundQueueStore } from '../queue/outbound-queue.store.js';
import { OutboundWorker } from './outbound-worker.js';
import type { SendAttempt } from './send-attempt.js';

/** A queue that hands out `first` lanes once, then none (nothing else due), counting the claims. */
function queue(first: number) {
  const q = { claims: 0, wants: [] as number[] };
  const claim = (_now: number, _lease: number, max: number): Promise<Claimed> => {
    q.wants.push(max);
    const n = q.claims++ === 0 ? Math.min(first, max) : 0;
    const leases = Array.from({ length: n }, (_, i) => ({ lane: `l${i}` }) as unknown as Lease);
    return Promise.resolve({ leases });
  };
  return { q, store: { claim } as unknown as OutboundQueueStore };
}

describe('OutboundWorker claims', () => {
  it('should not claim again at the end of each send after a short claim, only when a job is queued here', async () => {
    const clock = new ManualClock(); // time stands still: the short claim's wait does not run out
    const { q, store } = queue(6);
    const ends: (() => void)[] = [];
    const attempt = {
      run: () => new Promise<void>((r) => ends.push(r)),
      room: () => ({ at: 0, lanes: Infinity }),
    } as unknown as SendAttempt;
    const settings = { ...OUTBOUND_DEFAULTS, concurrency: 8, pollMs: 60_000 };
    const w = new OutboundWorker(store, attempt, settings, clock);
    w.start();
    while (ends.length < 6) await tick();
    expect(q.claims).toBe(1); // 6 of 8 wanted: every due lane is taken
    for (const end of ends.splice(0)) {
      end();
      for (let i = 0; i < 10; i++) await tick();
    }
    // Six sends ended, no lane came due: no claim (each visited every partition of the queue for nothing).
    expect(q.claims).toBe(1);
    w.wake(); // a job queued through this process
    while (q.claims < 2) await tick();
    expect(q.wants[1]).toBe(8);
    await w.stop();
  });
});

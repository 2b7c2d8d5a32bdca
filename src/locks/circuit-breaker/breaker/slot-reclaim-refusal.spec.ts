import { describe, expect, it, vi } from 'vitest';
import {
  SLOTS_BASE,
  breakerSlots,
  settle,
  stopped,
} from '../../../../test/support/breaker-slots.js';
import type { Admission } from '../circuit-breaker.types.js';
import type { Tenant } from './backend-breaker.js';
import { STOP_GRACE_MS } from './slot-reclaim.js';

/**
 * SlotReclaim when a refusal that does not queue (forRefusal) stops a call whose backend ignores the abort while
 * another app's calls wait: the stop counts as paid to them for STOP_GRACE_MS only, so the one timer fires when that
 * grace ends, whether it was armed for a later mark or not armed at all (nothing was due), and takes the next slot
 * back. The refused app is of tier `pro` (weight 2): it lowers the hog's share by two slots, one refusal stops one
 * call, so the hog stays above its share. Fake timers drive the clock and the timers.
 */
const { breaker, held } = breakerSlots({ ...SLOTS_BASE, capacity: 8, shareWeights: { pro: 2 } });
const [A, B]: Tenant[] = [{ id: 'app-a' }, { id: 'app-b' }];
const PRO: Tenant = { id: 'app-p', tier: 'pro' };

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

import { describe, expect, it } from 'vitest';
import { RecoveryRamp } from './recovery-ramp.js';

const TIMING = { rampPercents: [10, 50], rampMs: 20_000 };

describe(RecoveryRamp.name, () => {
  it('should admit exactly the share of each step, spread evenly, with the time to the next step', () => {
    const ramp = new RecoveryRamp();
    ramp.start(1_000);
    const first = Array.from({ length: 20 }, () => ramp.admit(TIMING, 1_000));
    expect(first.filter((a) => a?.admit)).toHaveLength(2);
    expect(first.slice(0, 10).filter((a) => a?.admit)).toHaveLength(1);
    expect(first[0]).toEqual({ admit: false, retryAfterMs: 10_000 });
    expect(ramp.share(TIMING, 1_000)).toBe(0.1);
    expect(ramp.share(TIMING, 11_000)).toBe(0.5);
    const second = Array.from({ length: 10 }, () => ramp.admit(TIMING, 11_000));
    expect(second.filter((a) => a?.admit)).toHaveLength(5);
  });

  it('should be over at rampMs, and at once without steps', () => {
    const ramp = new RecoveryRamp();
    ramp.start(0);
    expect(ramp.admit(TIMING, 20_000)).toBeUndefined();
    expect(ramp.share(TIMING, 20_000)).toBe(1);
    expect(ramp.admit({ rampPercents: [], rampMs: 20_000 }, 0)).toBeUndefined();
  });
});

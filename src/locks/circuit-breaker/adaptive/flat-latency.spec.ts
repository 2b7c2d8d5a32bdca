import { describe, expect, it } from 'vitest';
import { FlatLatency } from './flat-latency.js';
import { type AdaptiveOptions, GradientLimit } from './gradient-limit.js';

describe(FlatLatency.name, () => {
  it('should call the latency the backend own once a third fewer calls in flight are as slow', () => {
    const f = new FlatLatency();
    expect(f.above(15, 410, 0.25)).toBe(false);
    expect(f.above(12, 415, 0.25)).toBe(false); // 4/5 of the calls: not yet telling
    expect(f.above(10, 420, 0.25)).toBe(true); // 2/3 of 15, as slow: the backend's own
  });

  it('should not when the latency fell with the calls in flight (they queue at the backend)', () => {
    const f = new FlatLatency();
    expect(f.above(15, 600, 0.25)).toBe(false);
    expect(f.above(10, 400, 0.25)).toBe(false); // processor sharing: 2/3 of the calls, 2/3 of the latency
    expect(f.above(5, 200, 0.25)).toBe(false);
  });
});

const OPTIONS: AdaptiveOptions = {
  minLimit: 2,
  maxLimit: 128,
  initialLimit: 15,
  windowMs: 1_000,
  windowSamples: 10,
  minRttWindowMs: 60_000,
  tolerance: 0.25,
  smoothing: 0.2,
};

/** `windows` windows (each closes on its 10th call) of 10 calls 120 ms apart taking `rttMs`, the limit's calls in flight (calls wait for it). */
function run(g: GradientLimit, t: { now: number }, windows: number, rttMs: number): number[] {
  const limits: number[] = [];
  for (let w = 0; w < windows; w++) {
    for (let i = 0; i < 10; i++) g.sample(rttMs, g.limit, (t.now += 120));
    limits.push(g.limit);
  }
  return limits;
}

describe('GradientLimit through a slow spell (bench:attack: 10× slower for 20 s, then back)', () => {
  it('should re-base the minimum within the spell, so the limit stops falling', () => {
    const g = new GradientLimit(OPTIONS);
    const t = { now: 0 };
    run(g, t, 5, 40);
    const before = g.limit;
    const slow = run(g, t, 7, 400); // 7 windows 10× slower, whatever the calls in flight: the backend's own
    expect(g.snapshot(t.now).minRttMs).toBe(400);
    expect(Math.min(...slow)).toBeGreaterThan(before / 2); // re-based before the limit halved
    expect(slow.at(-1)).toBeGreaterThan(Math.min(...slow)); // and growing again
  });

  it('should have the limit back within 5 windows once the latency is back at its minimum', () => {
    const g = new GradientLimit({ ...OPTIONS, initialLimit: 40 });
    const t = { now: 0 };
    run(g, t, 3, 40);
    const queued = (n: number): number => 40 * Math.max(1, n / 8); // 8 slots: down where they queue
    for (let w = 0; w < 40; w++) run(g, t, 1, queued(g.limit));
    const low = g.limit;
    expect(low).toBeLessThan(15);
    const back = run(g, t, 5, 40); // the backend is back: its 40 ms at every limit, calls still waiting
    expect(back.at(-1)).toBeGreaterThanOrEqual(40);
  });
});

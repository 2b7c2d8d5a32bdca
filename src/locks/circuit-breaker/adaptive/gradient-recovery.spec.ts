import { describe, expect, it } from 'vitest';
import type { AdaptiveOptions } from './adaptive.types.js';
import { GradientLimit } from './gradient-limit.js';

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

describe('GradientLimit after a slow spell (bench:attack: the backend 10× slower for 20 s, then back)', () => {
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

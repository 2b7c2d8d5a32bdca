import { describe, expect, it } from 'vitest';
import type { AdaptiveOptions } from './adaptive.types.js';
import { GradientLimit } from './gradient-limit.js';
import { RttFloor } from './rtt-floor.js';

const OPTIONS: AdaptiveOptions = {
  minLimit: 2,
  maxLimit: 100,
  initialLimit: 20,
  windowMs: 100,
  windowSamples: 10,
  minRttWindowMs: 60_000,
  tolerance: 0.25,
  smoothing: 0.2,
};

/**
 * Feeds `windows` full windows (10 calls 12 ms apart) of calls taking `rttMs` (or `rttMs(inFlight)`), at `inFlight`
 * in flight (the limit by default).
 */
function run(
  g: GradientLimit,
  t: { now: number },
  windows: number,
  rttMs: number | ((inFlight: number) => number),
  inFlight?: number,
): number[] {
  const limits: number[] = [];
  for (let w = 0; w < windows; w++) {
    for (let i = 0; i < 10; i++) {
      t.now += 12;
      const n = inFlight ?? g.limit;
      g.sample(typeof rttMs === 'number' ? rttMs : rttMs(n), n, t.now);
    }
    limits.push(g.limit);
  }
  return limits;
}

describe(GradientLimit.name, () => {
  it('should judge a window only once it lasted windowMs and holds windowSamples calls', () => {
    const g = new GradientLimit(OPTIONS);
    const t = { now: 0 };
    expect(g.sample(10, 20, 0)).toBe(false);
    for (let i = 1; i < 10; i++) expect(g.sample(10, 20, 50)).toBe(false); // 10 calls, 50 ms: too short
    expect(g.sample(10, 20, 100)).toBe(true);
    expect(g.snapshot(t.now)).toMatchObject({ minRttMs: 10, sampleRttMs: 10 });
  });

  it('should let the limit fall when the latency doubles, and keep falling while it stays high', () => {
    const g = new GradientLimit({ ...OPTIONS, initialLimit: 50 });
    const t = { now: 0 };
    run(g, t, 5, 10);
    const before = g.limit;
    const limits = run(g, t, 20, 20, 50); // as many calls in flight (waiting ones), twice the latency
    expect(limits[0]).toBeLessThan(before);
    for (let i = 1; i < limits.length; i++) expect(limits[i]).toBeLessThanOrEqual(limits[i - 1]!);
    expect(limits.at(-1)).toBeLessThan(before / 2);
    expect(g.snapshot(t.now)).toMatchObject({ minRttMs: 10, sampleRttMs: 20, gradient: 0.625 });
  });

  it('should grow the limit back when the latency is back at its minimum', () => {
    const g = new GradientLimit({ ...OPTIONS, initialLimit: 40 });
    const t = { now: 0 };
    run(g, t, 3, 10);
    const low = run(g, t, 20, 50, 40).at(-1)!;
    const limits = run(g, t, 30, 10);
    expect(limits[0]).toBeGreaterThan(low);
    expect(limits.at(-1)).toBeGreaterThan(low * 3);
  });

  it('should stay within minLimit and maxLimit whatever the latency', () => {
    const g = new GradientLimit({ ...OPTIONS, minLimit: 3, maxLimit: 30 });
    const t = { now: 0 };
    run(g, t, 1, 1, 30);
    expect(Math.min(...run(g, t, 50, 10_000, 30))).toBe(3);
    expect(Math.max(...run(g, t, 200, 1))).toBe(30);
  });

  it('should not raise a limit the traffic does not use (app-limited), but still lower it', () => {
    const g = new GradientLimit(OPTIONS);
    const t = { now: 0 };
    expect(run(g, t, 20, 10, 3).every((l) => l === 20)).toBe(true);
    expect(run(g, t, 5, 40, 3).at(-1)).toBeLessThan(20);
  });

  it('should cut the limit by 10 % on a window with a drop, even at the minimum latency', () => {
    const g = new GradientLimit(OPTIONS);
    const t = { now: 0 };
    run(g, t, 1, 10);
    const before = g.limit;
    for (let i = 0; i < 9; i++) g.sample(10, before, (t.now += 12));
    g.drop(before, (t.now += 12));
    expect(g.limit).toBe(Math.floor(before * 0.9));
  });

  it('should re-base the minimum after minRttWindowMs, so a backend slower for good gets its limit back', () => {
    const g = new GradientLimit({ ...OPTIONS, minRttWindowMs: 5_000 });
    const t = { now: 0 };
    run(g, t, 3, 10);
    const floor = run(g, t, 30, 40, 20).at(-1)!; // 3 s at 4× the minimum, 20 calls in flight: down
    expect(g.snapshot(t.now).minRttMs).toBe(10);
    const later = run(g, t, 60, 40, 20).at(-1)!; // past the 5 s memory: 40 ms is the new minimum
    expect(g.snapshot(t.now).minRttMs).toBe(40);
    expect(later).toBeGreaterThan(floor);
  });
});

describe('GradientLimit on a backend that got slower', () => {
  it('should re-base the minimum once half the calls in flight are as slow (the latency is the backend own)', () => {
    const g = new GradientLimit({ ...OPTIONS, initialLimit: 40 });
    const t = { now: 0 };
    run(g, t, 3, 10, 40);
    // 10× slower whatever our calls in flight: the limit falls until it has halved, then the minimum is re-based.
    const limits = run(g, t, 40, 100);
    expect(g.snapshot(t.now).minRttMs).toBe(100);
    expect(Math.min(...limits)).toBeGreaterThanOrEqual(19);
    expect(limits.at(-1)).toBeGreaterThanOrEqual(Math.min(...limits));
  });

  it('should keep the minimum while the latency follows our calls in flight (they queue at the backend)', () => {
    const g = new GradientLimit({ ...OPTIONS, initialLimit: 40 });
    const t = { now: 0 };
    const queued = (n: number): number => 10 * Math.max(1, n / 8); // 8 slots, processor sharing
    run(g, t, 3, queued, 8);
    const limits = run(g, t, 60, queued);
    expect(g.snapshot(t.now).minRttMs).toBe(10);
    expect(limits.at(-1)).toBeLessThan(16); // towards the 8 slots, where a re-base would have stopped it at 20
  });
});

describe(RttFloor.name, () => {
  it('should give the lowest value since the cut-off', () => {
    const f = new RttFloor();
    f.add(0, 5);
    f.add(1, 9);
    f.add(2, 7);
    expect(f.min(0)).toBe(5);
    expect(f.min(1)).toBe(7);
    expect(f.min(3)).toBeUndefined();
    for (let i = 0; i < 1000; i++) f.add(10 + i, i);
    expect(f.min(500)).toBe(490);
  });
});

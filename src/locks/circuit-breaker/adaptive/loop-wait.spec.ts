import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from './concurrency-limit.js';
import type { AdaptiveOptions } from './adaptive.types.js';
import { GradientLimit } from './gradient-limit.js';
import { type LoopMark, type LoopWait, waitBetween } from './loop-wait.js';

/** Marks after `intervals` of the loop monitor's timer (ms each), from `from`. */
function after(from: LoopMark, intervals: number[]): LoopMark {
  return intervals.reduce((m, d) => ({ n: m.n + 1, s1: m.s1 + d, s2: m.s2 + d * d }), from);
}

const ZERO: LoopMark = { n: 0, s1: 0, s2: 0 };

describe(waitBetween.name, () => {
  it('should be about 0 for an idle loop, and 0 when the timer did not fire', () => {
    expect(waitBetween(ZERO, after(ZERO, Array(100).fill(10.1)))).toBeCloseTo(0.01 / 20.2, 5);
    expect(waitBetween(ZERO, ZERO)).toBe(0);
  });

  it('should weigh each busy spell by its length: half of it, for the share of time it lasted', () => {
    const start = after(ZERO, Array(50).fill(10)); // only the span between the marks counts
    // a 3 ms spell at each tick: an answer waits 3² ÷ (2 × 13) ms on average
    expect(waitBetween(start, after(start, Array(100).fill(13)))).toBeCloseTo(9 / 26, 5);
    // one 200 ms stall in a second of otherwise idle loop: 200² ÷ (2 × 1,010) ms
    const stall = after(start, [210, ...Array(80).fill(10)]);
    expect(waitBetween(start, stall)).toBeCloseTo(200 ** 2 / (2 * 1_010), 5);
  });
});

const OPTIONS: AdaptiveOptions = {
  minLimit: 2,
  maxLimit: 128,
  initialLimit: 20,
  windowMs: 1_000,
  windowSamples: 10,
  minRttWindowMs: 60_000,
  tolerance: 0.25,
  smoothing: 0.2,
};

/** `windows` windows of 10 calls 120 ms apart taking `rttMs`, 20 in flight, `ownMs` added by our own loop. */
function run(g: GradientLimit, t: { now: number }, windows: number, rttMs: number, ownMs = 0) {
  for (let w = 0; w < windows * 10; w++) g.sample(rttMs, 20, (t.now += 120), ownMs);
  return g.limit;
}

describe('GradientLimit with our own event loop busy (a flood, CPU shared with the backend)', () => {
  it('should not lower the limit for latency our own loop added, and keep the unloaded floor', () => {
    const g = new GradientLimit(OPTIONS);
    const t = { now: 0 };
    run(g, t, 3, 40);
    const before = g.limit;
    expect(run(g, t, 5, 60, 20)).toBeGreaterThanOrEqual(before); // 40 ms backend + 20 ms of our loop
    expect(g.snapshot(t.now).minRttMs).toBe(40);
  });

  it('should still lower it when the backend itself got slower', () => {
    const g = new GradientLimit(OPTIONS);
    const t = { now: 0 };
    run(g, t, 3, 40);
    const before = g.limit;
    expect(run(g, t, 5, 120, 20)).toBeLessThan(before); // 100 ms backend + 20 ms of our loop
  });

  it('should measure each window from its own mark (ConcurrencyLimit)', () => {
    let mark = ZERO;
    const loop: LoopWait = { mark: () => mark, since: (from) => waitBetween(from, mark) };
    const clock = { now: () => t.now, random: () => 0.5 };
    const t = { now: 0 };
    const limit = new ConcurrencyLimit({ capacity: 128, adaptive: OPTIONS } as never, clock, loop);
    for (let i = 0; i < 30; i++) {
      t.now += 120;
      mark = after(mark, Array(12).fill(10));
      limit.record('sample', 40, 20);
    }
    for (let i = 0; i < 50; i++) {
      t.now += 120;
      mark = after(mark, Array(3).fill(50)); // a flood: 40 ms spells, an answer waits 40² ÷ 100 = 16 ms
      limit.record('sample', 60, 20);
    }
    expect(limit.snapshot()).toMatchObject({ minRttMs: 40, sampleRttMs: 60 });
    expect(limit.snapshot()!.gradient).toBeGreaterThanOrEqual(1);
  });

  it('should read the loop monitor only when a call closes a window, not once a call (ConcurrencyLimit)', () => {
    let marks = 0;
    let reads = 0;
    const loop: LoopWait = {
      mark: () => (marks++, ZERO),
      since: () => (reads++, 0),
    };
    const t = { now: 0 };
    const limit = new ConcurrencyLimit(
      { capacity: 128, adaptive: OPTIONS } as never,
      { now: () => t.now, random: () => 0.5 },
      loop,
    );
    let windows = 0;
    for (let i = 0; i < 100; i++) {
      t.now += 120; // a window: 1 s and 10 calls
      if (limit.record('sample', 40, 20)) windows++;
    }
    expect(windows).toBeGreaterThan(5);
    expect(reads).toBe(windows);
    expect(marks).toBe(windows + 1);
  });
});

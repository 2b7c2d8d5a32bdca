import { describe, expect, it } from 'vitest';
import { Buckets, LatencyWindow, bucketQuantile } from './latency-window.js';

const LE = [0.01, 0.1, 1, Infinity];

describe(bucketQuantile.name, () => {
  it('should interpolate inside the bucket that holds the rank, as histogram_quantile does', () => {
    // 10 calls ≤ 10 ms, 10 more ≤ 100 ms
    const b: Buckets = { le: LE, counts: [10, 20, 20, 20] };
    expect(bucketQuantile(b, 0.5)).toBeCloseTo(0.01);
    expect(bucketQuantile(b, 0.75)).toBeCloseTo(0.055);
    expect(bucketQuantile(b, 1)).toBeCloseTo(0.1);
  });

  it('should answer the highest finite bound for the +Inf bucket, and null without calls', () => {
    expect(bucketQuantile({ le: LE, counts: [0, 0, 0, 4] }, 0.5)).toBe(1);
    expect(bucketQuantile({ le: LE, counts: [0, 0, 0, 0] }, 0.5)).toBeNull();
  });
});

describe(LatencyWindow.name, () => {
  it('should report the calls between the oldest kept snapshot and the newest', () => {
    const sut = new LatencyWindow(60_000);
    const snap = (counts: number[]) => new Map([['search', { le: LE, counts }]]);
    sut.add(0, snap([100, 100, 100, 100]));
    expect(sut.recent()).toEqual({});
    sut.add(30_000, snap([100, 110, 110, 110]));
    sut.add(60_000, snap([100, 120, 120, 120]));
    expect(sut.recent().search).toMatchObject({ windowSeconds: 60, calls: 20, p50Ms: 55 });
    sut.add(90_000, snap([100, 120, 130, 130]));
    // the snapshot at 0 left the window: 30 s → 90 s
    expect(sut.recent().search).toMatchObject({ windowSeconds: 60, calls: 20 });
  });
});

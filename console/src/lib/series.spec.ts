import { describe, expect, it } from 'vitest';
import {
  lockColumns,
  mergePoints,
  nextPollMs,
  recentRates,
  requestColumns,
  requestsIn,
} from './series.js';
import type { SeriesPoint } from './types.js';

const points: SeriesPoint[] = [
  {
    at: 10_000,
    seconds: 5,
    byPolicy: {
      search: { signature: { allowed: 10 }, rateLimit: { allowed: 8, rejected: 2 } },
      admin: { rateLimit: { allowed: 5 } },
    },
  },
  {
    at: 15_000,
    seconds: 5,
    byPolicy: {
      search: { signature: { allowed: 20 }, rateLimit: { allowed: 20, shadow_rejected: 1 } },
    },
  },
];

describe(requestsIn.name, () => {
  it('should count a policy’s requests as the decisions of its busiest lock', () => {
    expect(requestsIn(points[0]!.byPolicy.search)).toBe(10);
    expect(requestsIn(undefined)).toBe(0);
  });
});

describe(requestColumns.name, () => {
  it('should give per-second request rates per policy against Unix seconds', () => {
    expect(requestColumns(points, ['search', 'admin'])).toEqual([
      [10, 15],
      [2, 4.2],
      [1, 0],
    ]);
  });
});

describe(lockColumns.name, () => {
  it('should sum one lock’s outcomes over the policies, per second', () => {
    expect(lockColumns(points, 'rateLimit')).toEqual([
      [10, 15],
      [2.6, 4],
      [0.4, 0],
      [0, 0.2],
      [0, 0],
    ]);
  });
});

describe(recentRates.name, () => {
  it('should average the points of the window', () => {
    const r = recentRates(points, 15_000, 10_000);
    expect(r.search?.requests).toBeCloseTo(3.1);
    expect(r.search?.rejected).toBeCloseTo(0.2);
    expect(r.admin?.requests).toBeCloseTo(0.5);
  });
});

describe(mergePoints.name, () => {
  it('should append only newer points and drop the ones out of the window', () => {
    const merged = mergePoints(
      points,
      [points[1]!, { at: 20_000, seconds: 5, byPolicy: {} }],
      10_000,
      20_000,
    );
    expect(merged.map((p) => p.at)).toEqual([15_000, 20_000]);
  });

  it('should poll just after the next point is due, not a whole step later', () => {
    expect(nextPollMs(10_000, 12_000, 5_000)).toBe(3_150);
    expect(nextPollMs(10_000, 15_100, 5_000)).toBe(250);
    // Still no point long after it was due: polled once a second, then once a step (never spinning).
    expect(nextPollMs(10_000, 16_500, 5_000)).toBe(1_000);
    expect(nextPollMs(10_000, 30_000, 5_000)).toBe(5_000);
    expect(nextPollMs(10_000, 10_000, 500)).toBe(500);
    expect(nextPollMs(undefined, 10_000, 5_000)).toBe(1_000);
  });
});

import { describe, expect, it } from 'vitest';
import { CounterSeries } from './counter-series.js';
import type { InstanceCounts, OutcomeCounts } from './stats-store.js';

const counts = (c: Partial<OutcomeCounts>): OutcomeCounts => ({
  allowed: 0,
  rejected: 0,
  shadow_rejected: 0,
  short_circuited: 0,
  skipped: 0,
  ...c,
});
const inst = (instance: string, allowed: number, rejected = 0): InstanceCounts => ({
  instance,
  at: 0,
  counts: { rateLimit: { search: counts({ allowed, rejected }) } },
});

describe(CounterSeries.name, () => {
  it('should only set baselines on the first sample', () => {
    const sut = new CounterSeries(60_000);
    expect(sut.add(1000, [inst('a', 50)])).toBeUndefined();
    expect(sut.since()).toEqual([]);
  });

  it('should count what every instance added during the step, leaving zeros out', () => {
    const sut = new CounterSeries(60_000);
    sut.add(1000, [inst('a', 50), inst('b', 10, 2)]);
    const p = sut.add(6000, [inst('a', 53), inst('b', 14, 2)]);
    expect(p).toEqual({
      at: 6000,
      seconds: 5,
      byPolicy: { search: { rateLimit: { allowed: 7 } } },
    });
  });

  it('should baseline a new instance and forget one that left', () => {
    const sut = new CounterSeries(60_000);
    sut.add(1000, [inst('a', 5)]);
    expect(sut.add(2000, [inst('a', 6), inst('b', 900)])?.byPolicy).toEqual({
      search: { rateLimit: { allowed: 1 } },
    });
    expect(sut.add(3000, [inst('b', 901)])?.byPolicy).toEqual({
      search: { rateLimit: { allowed: 1 } },
    });
    // "a" comes back: baseline again, not 6 → 7 as if it never left
    expect(sut.add(4000, [inst('a', 7), inst('b', 901)])?.byPolicy).toEqual({});
  });

  it('should take a total that went down as a restart of that counter', () => {
    const sut = new CounterSeries(60_000);
    sut.add(1000, [inst('a', 100)]);
    expect(sut.add(2000, [inst('a', 3)])?.byPolicy).toEqual({
      search: { rateLimit: { allowed: 3 } },
    });
  });

  it('should keep the window and give only newer points with `since`', () => {
    const sut = new CounterSeries(10_000);
    for (let t = 0; t <= 20_000; t += 5000) sut.add(t, [inst('a', t)]);
    expect(sut.since().map((p) => p.at)).toEqual([15_000, 20_000]);
    expect(sut.since(15_000).map((p) => p.at)).toEqual([20_000]);
  });
});

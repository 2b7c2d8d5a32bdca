import { describe, expect, it } from 'vitest';
import { instanceStaged, subjectPlace } from './stage.js';

describe('staged enforcement', () => {
  it('should place keys evenly over 0–99, the same key always in the same place', () => {
    const places = Array.from({ length: 10_000 }, (_, i) => subjectPlace(`rl:{t}:a:user:${i}`));
    expect(places.every((p) => Number.isInteger(p) && p >= 0 && p < 100)).toBe(true);
    const under10 = places.filter((p) => p < 10).length;
    expect(under10).toBeGreaterThan(800);
    expect(under10).toBeLessThan(1200);
    expect(subjectPlace('rl:{t}:a:user:7')).toBe(places[7]);
  });

  it('should stage an instance in when its place is below the share', () => {
    expect(instanceStaged({ subjects: 100, instances: 30 }, 29)).toBe(true);
    expect(instanceStaged({ subjects: 100, instances: 30 }, 30)).toBe(false);
    expect(instanceStaged({ subjects: 100, instances: 0 }, 0)).toBe(false);
    expect(instanceStaged({ subjects: 100, instances: 100 }, 99)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { attemptOrder } from './attempt-order.js';

const u = (name: string, weight: number, priority = 0) => ({ name, weight, priority });

describe(attemptOrder.name, () => {
  it('should try lower priorities first, whatever the draw', () => {
    const ups = [u('backup', 100, 1), u('main', 1, 0)];
    for (const r of [0, 0.5, 0.999])
      expect(attemptOrder(ups, () => r).map((x) => x.name)).toEqual(['main', 'backup']);
  });

  it('should draw by weight within a priority, then the rest', () => {
    const ups = [u('a', 3), u('b', 1)];
    expect(attemptOrder(ups, () => 0.74).map((x) => x.name)).toEqual(['a', 'b']);
    expect(attemptOrder(ups, () => 0.75).map((x) => x.name)).toEqual(['b', 'a']);
  });

  it('should put each upstream first about as often as its weight says', () => {
    const ups = [u('a', 3), u('b', 1), u('c', 0 + 4)];
    const first: Record<string, number> = { a: 0, b: 0, c: 0 };
    let seed = 7;
    const random = (): number => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    for (let i = 0; i < 8_000; i++) first[attemptOrder(ups, random)[0]!.name]!++;
    expect(first.a! / 8_000).toBeCloseTo(3 / 8, 1);
    expect(first.b! / 8_000).toBeCloseTo(1 / 8, 1);
    expect(first.c! / 8_000).toBeCloseTo(4 / 8, 1);
  });

  it('should list every upstream exactly once', () => {
    const ups = [u('a', 1), u('b', 2, 1), u('c', 5), u('d', 1, 1)];
    const order = attemptOrder(ups, Math.random).map((x) => x.name);
    expect([...order].sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});

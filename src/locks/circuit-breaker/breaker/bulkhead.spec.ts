import { describe, expect, it } from 'vitest';
import { Bulkhead } from './bulkhead.js';

describe(Bulkhead.name, () => {
  it('should hold a slot until the work has settled, also when it throws at once', async () => {
    const seen: number[] = [];
    const b = new Bulkhead((n) => seen.push(n));
    let finish!: () => void;
    const work = b.hold(() => new Promise<void>((r) => (finish = r)));
    const thrown = b.hold((): Promise<void> => {
      throw new Error('sync');
    });
    expect(b.inFlight).toBe(2);
    expect(b.full(2)).toBe(true);
    await expect(thrown).rejects.toThrow('sync');
    expect(b.inFlight).toBe(1);
    finish();
    await work;
    await new Promise((r) => setImmediate(r));
    expect(b.inFlight).toBe(0);
    expect(seen).toEqual([1, 2, 1, 0]);
  });
});

import { describe, expect, it } from 'vitest';
import { SingleFlight } from './single-flight.js';

describe(SingleFlight.name, () => {
  it('should make one call for 100 concurrent callers of one key and give all of them its result', async () => {
    const sf = new SingleFlight<number>();
    let calls = 0;
    let release!: (v: number) => void;
    const gate = new Promise<number>((r) => (release = r));
    const runs = Array.from({ length: 100 }, () => sf.run('k', () => (calls++, gate)));
    expect(runs.filter((r) => r.leader)).toHaveLength(1);
    release(42);
    expect(await Promise.all(runs.map((r) => r.promise))).toEqual(Array(100).fill(42));
    expect(calls).toBe(1);
    expect(sf.size).toBe(0);
  });

  it('should share a failure with the callers that joined, then start afresh', async () => {
    const sf = new SingleFlight<number>();
    const a = sf.run('k', () => Promise.reject(new Error('boom')));
    const b = sf.run('k', () => Promise.resolve(1));
    await expect(a.promise).rejects.toThrow('boom');
    await expect(b.promise).rejects.toThrow('boom');
    const c = sf.run('k', () => Promise.resolve(2));
    expect(c.leader).toBe(true);
    expect(await c.promise).toBe(2);
  });

  it('should keep different keys apart', async () => {
    const sf = new SingleFlight<string>();
    const a = sf.run('a', async () => 'A');
    const b = sf.run('b', async () => 'B');
    expect([a.leader, b.leader]).toEqual([true, true]);
    expect([await a.promise, await b.promise]).toEqual(['A', 'B']);
  });
});

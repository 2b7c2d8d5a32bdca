/**
 * THE table of the cache shield's result-cache stores: every case runs
 * against the memory store (unit ring) and the Redis store (integration ring).
 */
import { expect, it } from 'vitest';
import type { ResultCacheStore } from '../../src/locks/cache-shield/store/result-cache.store.js';

export interface ResultCacheHarness {
  store: ResultCacheStore;
  /** A key prefix unique to this case. */
  prefix: string;
}

export function runResultCacheTable(make: () => Promise<ResultCacheHarness>): void {
  it('should answer undefined for a key never set', async () => {
    const { store, prefix } = await make();
    expect(await store.get(`${prefix}:none`)).toBeUndefined();
  });

  it('should return what was set, byte for byte, and the last value set', async () => {
    const { store, prefix } = await make();
    const value = JSON.stringify({
      query: 'São Paulo 東京 😀',
      items: [{ id: '1', name: 'x'.repeat(10_000) }],
    });
    await store.set(`${prefix}:a`, value, 60_000);
    expect(await store.get(`${prefix}:a`)).toBe(value);
    await store.set(`${prefix}:a`, 'second', 60_000);
    expect(await store.get(`${prefix}:a`)).toBe('second');
  });

  it('should forget a value once its TTL has passed', async () => {
    const { store, prefix } = await make();
    await store.set(`${prefix}:short`, 'v', 40);
    await store.set(`${prefix}:long`, 'v', 60_000);
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      await new Promise((r) => setTimeout(r, 20));
      gone = (await store.get(`${prefix}:short`)) === undefined;
    }
    expect(gone).toBe(true);
    expect(await store.get(`${prefix}:long`)).toBe('v');
  });

  it('should keep keys apart', async () => {
    const { store, prefix } = await make();
    await store.set(`${prefix}:1`, 'one', 60_000);
    await store.set(`${prefix}:2`, 'two', 60_000);
    expect([await store.get(`${prefix}:1`), await store.get(`${prefix}:2`)]).toEqual([
      'one',
      'two',
    ]);
  });
}

import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../common/clock.js';
import { runResultCacheTable } from '../../../../test/support/shield-result-cache.table.js';
import { MemoryResultCacheStore } from './memory-result-cache.store.js';

describe(MemoryResultCacheStore.name, () => {
  let n = 0;
  runResultCacheTable(async () => ({
    store: new MemoryResultCacheStore(100, systemClock),
    prefix: `p${++n}`,
  }));

  it('should evict the least recently used entry past its size', async () => {
    const store = new MemoryResultCacheStore(2, systemClock);
    await store.set('a', '1', 60_000);
    await store.set('b', '2', 60_000);
    await store.get('a');
    await store.set('c', '3', 60_000);
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([
      '1',
      undefined,
      '3',
    ]);
    expect(store.size).toBe(2);
  });

  it('should store nothing with a size of 0', async () => {
    const store = new MemoryResultCacheStore(0, systemClock);
    await store.set('a', '1', 60_000);
    expect(await store.get('a')).toBeUndefined();
  });
});

describe(`${MemoryResultCacheStore.name} owners`, () => {
  it("should evict a flooding owner's own entries, never those of an owner holding fewer", async () => {
    const store = new MemoryResultCacheStore(10, systemClock);
    for (const k of ['a1', 'a2', 'a3']) await store.set(k, k, 60_000, 'app-a');
    await store.set('anon', 'anon', 60_000);
    for (let i = 0; i < 1_000; i++) await store.set(`x${i}`, 'junk', 60_000, 'app-x');
    expect(store.size).toBe(10);
    for (const k of ['a1', 'a2', 'a3', 'anon']) expect(await store.get(k)).toBe(k);
    // The flood kept its most recent keys only.
    expect([await store.get('x999'), await store.get('x994'), await store.get('x993')]).toEqual([
      'junk',
      'junk',
      undefined,
    ]);
  });

  it('should take from the largest owner its least recently used entry, and move an entry rewritten by another owner', async () => {
    const store = new MemoryResultCacheStore(4, systemClock);
    for (const k of ['a1', 'a2', 'a3']) await store.set(k, k, 60_000, 'app-a');
    await store.get('a1');
    await store.set('b1', 'b1', 60_000, 'app-b');
    await store.set('a2', 'a2', 60_000, 'app-b');
    await store.set('b2', 'b2', 60_000, 'app-b');
    // app-a held 2 (a1, a3), app-b 3 (b1, a2, b2): app-b's least recently used goes.
    expect(await store.get('b1')).toBeUndefined();
    expect([await store.get('a1'), await store.get('a3'), await store.get('a2')]).toEqual([
      'a1',
      'a3',
      'a2',
    ]);
  });
});

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

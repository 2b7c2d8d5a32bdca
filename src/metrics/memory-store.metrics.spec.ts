import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../common/bounded-map.js';
import { MemoryStoreBook } from '../common/memory-stores.js';
import { registerMemoryStoreMetrics } from './memory-store.metrics.js';

describe(registerMemoryStoreMetrics.name, () => {
  it('should export each store’s entries, evictions and refusals at scrape time', async () => {
    const registry = new Registry();
    const book = new MemoryStoreBook();
    registerMemoryStoreMetrics(registry, book);
    const m = new BoundedMap<string, number>({ store: 'probe', maxEntries: 2, whenFull: 'refuse' });
    book.track('probe', m);
    m.set('a', 1, 0);
    book.evicted('probe', 3);
    book.refused('probe', 2);
    const text = await registry.metrics();
    expect(text).toContain('rampart_memory_store_entries{store="probe"} 1');
    expect(text).toContain('rampart_memory_store_evictions_total{store="probe"} 3');
    expect(text).toContain('rampart_memory_store_refusals_total{store="probe"} 2');
    m.set('b', 1, 0);
    book.evicted('probe', 1);
    const again = await registry.metrics();
    expect(again).toContain('rampart_memory_store_entries{store="probe"} 2');
    expect(again).toContain('rampart_memory_store_evictions_total{store="probe"} 4');
  });
});

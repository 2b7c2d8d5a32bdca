import { Counter, Gauge, type Registry } from 'prom-client';
import { type MemoryStoreBook, memoryStores } from '../common/memory-stores.js';

/**
 * The in-memory stores' size and evictions (src/common/bounded-map.ts), read from the
 * process's book at scrape time: no work on the request path.
 */
export function registerMemoryStoreMetrics(
  registry: Registry,
  book: MemoryStoreBook = memoryStores,
): void {
  new Gauge({
    name: 'rampart_memory_store_entries',
    help: 'Entries held by an in-memory store (embedded mode, or the local fallback), by store',
    labelNames: ['store'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [store, n] of book.entries()) this.set({ store }, n);
    },
  });
  totals(
    registry,
    'rampart_memory_store_evictions_total',
    'Entries an in-memory store dropped to make room for new ones (stale first), by store',
    () => book.evictionTotals(),
  );
  totals(
    registry,
    'rampart_memory_store_refusals_total',
    'New keys a full in-memory store refused rather than drop live state (answered 503), by store',
    () => book.refusalTotals(),
  );
}

function totals(
  registry: Registry,
  name: string,
  help: string,
  read: () => ReadonlyMap<string, number>,
): void {
  new Counter({
    name,
    help,
    labelNames: ['store'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [store, n] of read()) this.inc({ store }, n);
    },
  });
}

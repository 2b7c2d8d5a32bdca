/** What the book reads of a bounded store. */
interface Sized {
  readonly size: number;
}

/**
 * The process's in-memory stores, by store name: their entries (read at scrape time from the
 * live maps, held weakly so a closed app's stores go with it) and their evictions and refusals
 * (counted here, so the totals never go down). Process-wide on purpose: the memory it
 * reports is the process's, whatever app instance made the map.
 */
export class MemoryStoreBook {
  private readonly maps = new Map<string, Set<WeakRef<Sized>>>();
  private readonly evictions = new Map<string, number>();
  private readonly refusals = new Map<string, number>();

  track(store: string, map: Sized): void {
    let set = this.maps.get(store);
    if (!set) this.maps.set(store, (set = new Set()));
    set.add(new WeakRef(map));
  }

  evicted(store: string, n: number): void {
    this.evictions.set(store, (this.evictions.get(store) ?? 0) + n);
  }

  refused(store: string, n: number): void {
    this.refusals.set(store, (this.refusals.get(store) ?? 0) + n);
  }

  /** Entries held now, per store (summed over its live maps). */
  entries(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [store, set] of this.maps) {
      let n = 0;
      for (const ref of set) {
        const m = ref.deref();
        if (m === undefined) set.delete(ref);
        else n += m.size;
      }
      out.set(store, n);
    }
    return out;
  }

  /** Entries dropped to make room, per store, since the process started. */
  evictionTotals(): ReadonlyMap<string, number> {
    return this.evictions;
  }

  /** New keys refused by a full store, per store, since the process started. */
  refusalTotals(): ReadonlyMap<string, number> {
    return this.refusals;
  }
}

/** The book of this process. */
export const memoryStores = new MemoryStoreBook();

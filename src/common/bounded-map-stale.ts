import type { BoundedMapOptions } from './bounded-map.options.js';
import type { WriteOrder } from './bounded-map-order.js';
import { memoryStores } from './memory-stores.js';

/** Oldest entries looked at for a stale one per new key when full (bounded work per write). */
const SCAN = 32;
/** A full sweep of stale entries at most this often when the oldest ones are all live (ms of `now`). */
const FULL_SWEEP_MS = 1_000;
/** Oldest entries checked for staleness on each new key (incremental expiry, as Redis does). */
const TRIM = 2;

/**
 * The entries a BoundedMap drops without changing an answer: expired ones (from the oldest end as new
 * keys come, and by sweeps), and evictable ones while the map lacks room (`expired` and `evictable`
 * of its options).
 */
export class StaleEntries<K, V> {
  private lastFullSweep = -Infinity;
  private readonly expired: (v: V, now: number) => boolean;
  private readonly evictable: (v: V, now: number) => boolean;

  constructor(
    private readonly order: WriteOrder<K, V>,
    private readonly opts: BoundedMapOptions<V>,
  ) {
    this.expired = opts.expired ?? (() => false);
    this.evictable = opts.evictable ?? this.expired;
  }

  /**
   * Drops stale entries, oldest first and bounded per call, until `n` new keys fit (a full sweep of the
   * map at most every FULL_SWEEP_MS): true when they fit.
   */
  makeRoom(n: number, now: number): boolean {
    const max = this.opts.maxEntries;
    this.trim(TRIM, now);
    if (this.order.size + n <= max) return true;
    this.drop(SCAN, now, n);
    if (this.order.size + n > max && now - this.lastFullSweep >= FULL_SWEEP_MS) {
      this.lastFullSweep = now;
      this.drop(Infinity, now, n);
    }
    return this.order.size + n <= max;
  }

  /** Drops every expired entry (not counted as evictions: they had lapsed). */
  sweep(now: number): void {
    for (let n = this.order.head; n !== undefined;) {
      const next = n.next;
      if (this.expired(n.value, now)) this.order.remove(n);
      n = next;
    }
  }

  /** Drops expired entries from the oldest end, stopping at the first live one or after `max`. */
  private trim(max: number, now: number): void {
    while (max-- > 0 && this.order.head !== undefined && this.expired(this.order.head.value, now))
      this.order.remove(this.order.head);
  }

  /**
   * Among the `max` oldest: drops the expired entries, and evictable ones while the map lacks room
   * for `n` new keys (a full map: counted as evictions).
   */
  private drop(max: number, now: number, n: number): void {
    let dropped = 0;
    for (let node = this.order.head; node !== undefined && max-- > 0;) {
      const next = node.next;
      const need = this.order.size + n > this.opts.maxEntries;
      if (this.expired(node.value, now) || (need && this.evictable(node.value, now))) {
        this.order.remove(node);
        dropped += 1;
      }
      node = next;
    }
    if (dropped > 0) memoryStores.evicted(this.opts.store, dropped);
  }
}

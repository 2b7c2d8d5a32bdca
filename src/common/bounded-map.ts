import { memoryStores } from './memory-stores.js';

/**
 * What a full map does with a new key when no entry is stale:
 * - `evict-oldest`: drops the least recently written entry (caches: a lost entry only costs a miss);
 * - `refuse`: keeps every live entry and refuses the new key (state whose loss would weaken a
 *   defence: a bucket that has not refilled, an unexpired nonce, a revoked key).
 */
export type WhenFull = 'evict-oldest' | 'refuse';

export interface BoundedMapOptions<V> {
  /** Store label of the metrics (`rampart_memory_store_entries{store=…}`). */
  store: string;
  /** Most entries held at once (0: the map holds nothing). */
  maxEntries: number;
  whenFull: WhenFull;
  /**
   * True when dropping `v` at `now` changes no answer (expired, refilled): such entries are dropped first,
   * least recently written first. Without it no entry is stale.
   */
  stale?: (v: V, now: number) => boolean;
}

/** Oldest entries looked at for a stale one per new key when full (bounded work per write). */
const SCAN = 32;
/** A full sweep of stale entries at most this often when the oldest ones are all live (ms of `now`). */
const FULL_SWEEP_MS = 1_000;
/** Oldest entries checked for staleness on each new key (incremental expiry, as Redis does). */
const TRIM = 2;

/**
 * A Map with a size cap: the one primitive behind every in-memory store (docs/operations.md#memory).
 * Iteration order is write order (`set` moves a key to the newest end), so the oldest end holds the
 * entries least recently written: the first to be stale, and the least recently used.
 * Entries and evictions are reported per store name (src/metrics/memory-store.metrics.ts).
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  private lastFullSweep = -Infinity;
  private readonly stale: (v: V, now: number) => boolean;

  constructor(readonly opts: BoundedMapOptions<V>) {
    this.stale = opts.stale ?? (() => false);
    memoryStores.track(opts.store, this);
  }

  get size(): number {
    return this.map.size;
  }

  get maxEntries(): number {
    return this.opts.maxEntries;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /**
   * Writes `key` as the newest entry. A new key in a full map first takes the place of stale entries,
   * then follows `whenFull` (or `policy` for this write); false when it was refused.
   */
  set(key: K, value: V, now: number, policy: WhenFull = this.opts.whenFull): boolean {
    if (this.map.delete(key)) {
      this.map.set(key, value);
      return true;
    }
    if (!this.room(1, now, policy)) return false;
    this.map.set(key, value);
    return true;
  }

  /**
   * Makes room for `n` new keys (stale entries first, then by `whenFull`): true when they fit.
   * Lets a caller that writes several keys at once refuse before writing any of them.
   */
  room(n: number, now: number, policy: WhenFull = this.opts.whenFull): boolean {
    const max = this.opts.maxEntries;
    if (n > max) return this.refused(n);
    this.trim(TRIM, now);
    if (this.map.size + n <= max) return true;
    this.dropStale(SCAN, now);
    if (this.map.size + n > max && now - this.lastFullSweep >= FULL_SWEEP_MS) {
      this.lastFullSweep = now;
      this.dropStale(Infinity, now);
    }
    if (this.map.size + n <= max) return true;
    if (policy === 'refuse') return this.refused(1);
    let drop = this.map.size + n - max;
    for (const k of this.map.keys()) {
      if (drop-- <= 0) break;
      this.map.delete(k);
      memoryStores.evicted(this.opts.store, 1);
    }
    return true;
  }

  /** Writes in place, keeping the key's position (a read that must not count as a use). */
  replace(key: K, value: V): void {
    if (this.map.has(key)) this.map.set(key, value);
  }

  /** Moves `key` to the newest end (a use, for least-recently-used eviction). */
  touch(key: K): void {
    const v = this.map.get(key);
    if (v !== undefined && this.map.delete(key)) this.map.set(key, v);
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  /** Drops every stale entry (not counted as evictions: they had lapsed). */
  sweep(now: number): void {
    for (const [k, v] of this.map) if (this.stale(v, now)) this.map.delete(k);
  }

  /** Drops stale entries from the oldest end, stopping at the first live one or after `max`. */
  private trim(max: number, now: number): void {
    for (const [k, v] of this.map) {
      if (max-- <= 0 || !this.stale(v, now)) return;
      this.map.delete(k);
    }
  }

  /** Drops the stale entries among the `max` oldest (a full map: counted as evictions). */
  private dropStale(max: number, now: number): void {
    let n = 0;
    for (const [k, v] of this.map) {
      if (max-- <= 0) break;
      if (!this.stale(v, now)) continue;
      this.map.delete(k);
      n += 1;
    }
    if (n > 0) memoryStores.evicted(this.opts.store, n);
  }

  private refused(n: number): false {
    memoryStores.refused(this.opts.store, n);
    return false;
  }
}

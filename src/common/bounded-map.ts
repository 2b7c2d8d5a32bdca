import type { BoundedMapOptions, WhenFull } from './bounded-map.options.js';
import { WriteOrder } from './bounded-map-order.js';
import { StaleEntries } from './bounded-map-stale.js';
import { memoryStores } from './memory-stores.js';

/**
 * A Map with a size cap: the one primitive behind every in-memory store (docs/operations.md#memory).
 * Entries are kept in write order (`set` moves a key to the newest end; bounded-map-order.ts), so the
 * oldest end holds the entries least recently written: the first to expire, and the least recently
 * used. Entries and evictions are reported per store name (src/metrics/memory-store.metrics.ts).
 */
export class BoundedMap<K, V> {
  private readonly order: WriteOrder<K, V>;
  private readonly stale: StaleEntries<K, V>;

  constructor(readonly opts: BoundedMapOptions<V>) {
    this.order = new WriteOrder(opts.shareOf !== undefined);
    this.stale = new StaleEntries(this.order, opts);
    memoryStores.track(opts.store, this);
  }

  get size(): number {
    return this.order.size;
  }

  get maxEntries(): number {
    return this.opts.maxEntries;
  }

  /** Entries held by `share` (0 without `shareOf`). */
  shareSize(share: string): number {
    return this.order.shareSize(share);
  }

  get(key: K): V | undefined {
    return this.order.node(key)?.value;
  }

  has(key: K): boolean {
    return this.order.node(key) !== undefined;
  }

  /**
   * Writes `key` as the newest entry. A new key in a full map first takes the place of evictable entries,
   * then follows `whenFull` (or `policy` for this write); false when it was refused.
   */
  set(key: K, value: V, now: number, policy: WhenFull = this.opts.whenFull): boolean {
    const share = this.opts.shareOf?.(value);
    const node = this.order.node(key);
    if (node !== undefined) {
      node.value = value;
      this.order.toTail(node, share);
      return true;
    }
    if (!this.room(1, now, policy, share)) return false;
    this.order.add(key, value, share);
    return true;
  }

  /**
   * Makes room for `n` new keys (evictable entries first, then by `whenFull`): true when they fit.
   * Lets a caller that writes several keys at once refuse before writing any of them. `share`: theirs,
   * with `shareOf` (the victim is then taken from the share holding the most, these keys counted).
   */
  room(n: number, now: number, policy: WhenFull = this.opts.whenFull, share?: string): boolean {
    const max = this.opts.maxEntries;
    if (n > max) return this.refused(n);
    if (this.stale.makeRoom(n, now)) return true;
    if (policy === 'refuse') return this.refused(1);
    let drop = this.order.size + n - max;
    memoryStores.evicted(this.opts.store, drop);
    for (; drop > 0; drop--) {
      const victim = this.order.victim(share, n);
      if (victim === undefined) break;
      this.order.remove(victim);
    }
    return true;
  }

  /** Moves `key` to the newest end (a use, for least-recently-used eviction). */
  touch(key: K): void {
    const node = this.order.node(key);
    if (node !== undefined) this.order.toTail(node);
  }

  delete(key: K): boolean {
    const node = this.order.node(key);
    if (node === undefined) return false;
    this.order.remove(node);
    return true;
  }

  clear(): void {
    this.order.clear();
  }

  /** Oldest first. */
  *entries(): IterableIterator<[K, V]> {
    for (let n = this.order.head; n !== undefined; n = n.next) yield [n.key, n.value];
  }

  /** Drops every expired entry (not counted as evictions: they had lapsed). */
  sweep(now: number): void {
    this.stale.sweep(now);
  }

  private refused(n: number): false {
    memoryStores.refused(this.opts.store, n);
    return false;
  }
}

/** A full store refused state it cannot drop safely: the caller fails closed (503), nothing was written. */
export class MemoryStoreFullError extends Error {
  override readonly name = 'MemoryStoreFullError';

  constructor(
    readonly store: string,
    readonly maxEntries: number,
  ) {
    super(`memory store ${store} is full (${maxEntries} live entries)`);
  }
}

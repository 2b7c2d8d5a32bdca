import { type ShareLinks, Shares } from './bounded-map-shares.js';
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
   * True when dropping `v` at `now` changes no answer (expired, refilled): dropped from the oldest end as
   * new keys come, by sweeps, and first when the map is full. Without it nothing expires.
   */
  expired?: (v: V, now: number) => boolean;
  /**
   * True when a full map may drop `v` for a new key although it has not expired, because losing it never
   * makes an answer more lenient (e.g. a risk record without score: its subject is judged as new again).
   * Defaults to `expired`.
   */
  evictable?: (v: V, now: number) => boolean;
  /**
   * Who filled `v` (e.g. the app that asked). With it, a full map that must drop a live entry for
   * `evict-oldest` drops the least recently written entry of the share holding the most entries (the new
   * key's share counted with it), not the oldest of all: a share that floods the map pushes out its own
   * entries, never those of a share holding fewer. Stale entries still go first, whoever filled them.
   * Shares should be few (app ids, not subjects): choosing a victim walks them.
   */
  shareOf?: (v: V) => string;
}

/** Oldest entries looked at for a stale one per new key when full (bounded work per write). */
const SCAN = 32;
/** A full sweep of stale entries at most this often when the oldest ones are all live (ms of `now`). */
const FULL_SWEEP_MS = 1_000;
/** Oldest entries checked for staleness on each new key (incremental expiry, as Redis does). */
const TRIM = 2;

/** One entry, in a doubly linked list from the least recently written (head) to the newest (tail). */
class Node<K, V> {
  prev: Node<K, V> | undefined = undefined;
  next: Node<K, V> | undefined = undefined;

  constructor(
    readonly key: K,
    public value: V,
  ) {}
}

/** An entry of a map with shares: also linked in its share's list. */
class SharedNode<K, V> extends Node<K, V> implements ShareLinks<SharedNode<K, V>> {
  sprev: SharedNode<K, V> | undefined = undefined;
  snext: SharedNode<K, V> | undefined = undefined;

  constructor(
    key: K,
    value: V,
    public share: string,
  ) {
    super(key, value);
  }
}

/**
 * A Map with a size cap: the one primitive behind every in-memory store (docs/operations.md#memory).
 * Entries are kept in write order (`set` moves a key to the newest end) in a linked list, so the
 * oldest end holds the entries least recently written: the first to expire, and the least recently
 * used. A list and not the Map's own order: a Map walked from its start after deletions skips every
 * deleted slot until it rehashes, which makes evicting from the front quadratic (14 s for 200,000
 * evictions of a 60,000-entry Map). Entries and evictions are reported per store name
 * (src/metrics/memory-store.metrics.ts).
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, Node<K, V>>();
  private head: Node<K, V> | undefined = undefined;
  private tail: Node<K, V> | undefined = undefined;
  private lastFullSweep = -Infinity;
  private readonly expired: (v: V, now: number) => boolean;
  private readonly evictable: (v: V, now: number) => boolean;
  /** With `shareOf`: the entries by share (every node is then a SharedNode). */
  private readonly shares: Shares<SharedNode<K, V>> | undefined;

  constructor(readonly opts: BoundedMapOptions<V>) {
    this.expired = opts.expired ?? (() => false);
    this.evictable = opts.evictable ?? this.expired;
    this.shares = opts.shareOf ? new Shares() : undefined;
    memoryStores.track(opts.store, this);
  }

  get size(): number {
    return this.map.size;
  }

  get maxEntries(): number {
    return this.opts.maxEntries;
  }

  /** Entries held by `share` (0 without `shareOf`). */
  shareSize(share: string): number {
    return this.shares?.size(share) ?? 0;
  }

  get(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /**
   * Writes `key` as the newest entry. A new key in a full map first takes the place of evictable entries,
   * then follows `whenFull` (or `policy` for this write); false when it was refused.
   */
  set(key: K, value: V, now: number, policy: WhenFull = this.opts.whenFull): boolean {
    const share = this.opts.shareOf?.(value);
    const node = this.map.get(key);
    if (node !== undefined) {
      node.value = value;
      this.toTail(node, share);
      return true;
    }
    if (!this.room(1, now, policy, share)) return false;
    const added = share === undefined ? new Node(key, value) : new SharedNode(key, value, share);
    this.map.set(key, added);
    this.append(added);
    if (share !== undefined) this.shares!.add(added as SharedNode<K, V>);
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
    this.trim(TRIM, now);
    if (this.map.size + n <= max) return true;
    this.dropStale(SCAN, now, n);
    if (this.map.size + n > max && now - this.lastFullSweep >= FULL_SWEEP_MS) {
      this.lastFullSweep = now;
      this.dropStale(Infinity, now, n);
    }
    if (this.map.size + n <= max) return true;
    if (policy === 'refuse') return this.refused(1);
    let drop = this.map.size + n - max;
    memoryStores.evicted(this.opts.store, drop);
    for (; drop > 0; drop--) {
      const victim = this.victim(share, n);
      if (victim === undefined) break;
      this.remove(victim);
    }
    return true;
  }

  /** Moves `key` to the newest end (a use, for least-recently-used eviction). */
  touch(key: K): void {
    const node = this.map.get(key);
    if (node !== undefined) this.toTail(node);
  }

  delete(key: K): boolean {
    const node = this.map.get(key);
    if (node === undefined) return false;
    this.remove(node);
    return true;
  }

  clear(): void {
    this.map.clear();
    this.shares?.clear();
    this.head = this.tail = undefined;
  }

  /** Oldest first. */
  *entries(): IterableIterator<[K, V]> {
    for (let n = this.head; n !== undefined; n = n.next) yield [n.key, n.value];
  }

  /** Drops every expired entry (not counted as evictions: they had lapsed). */
  sweep(now: number): void {
    for (let n = this.head; n !== undefined;) {
      const next = n.next;
      if (this.expired(n.value, now)) this.remove(n);
      n = next;
    }
  }

  /** Drops expired entries from the oldest end, stopping at the first live one or after `max`. */
  private trim(max: number, now: number): void {
    while (max-- > 0 && this.head !== undefined && this.expired(this.head.value, now))
      this.remove(this.head);
  }

  /**
   * Among the `max` oldest: drops the expired entries, and evictable ones while the map lacks room
   * for `n` new keys (a full map: counted as evictions).
   */
  private dropStale(max: number, now: number, n: number): void {
    let dropped = 0;
    for (let node = this.head; node !== undefined && max-- > 0;) {
      const next = node.next;
      const need = this.map.size + n > this.opts.maxEntries;
      if (this.expired(node.value, now) || (need && this.evictable(node.value, now))) {
        this.remove(node);
        dropped += 1;
      }
      node = next;
    }
    if (dropped > 0) memoryStores.evicted(this.opts.store, dropped);
  }

  private refused(n: number): false {
    memoryStores.refused(this.opts.store, n);
    return false;
  }

  /** The live entry to drop for a new key of `share` (`n` keys): the oldest, or the largest share's oldest. */
  private victim(share: string | undefined, n: number): Node<K, V> | undefined {
    return this.shares ? this.shares.victim(share, n) : this.head;
  }

  private remove(node: Node<K, V>): void {
    this.map.delete(node.key);
    this.unlink(node);
    this.shares?.remove(node as SharedNode<K, V>);
  }

  /** Moves `node` to the newest end of the map, and of its share's list (`share`'s when rewritten by it). */
  private toTail(node: Node<K, V>, share?: string): void {
    if (this.shares) {
      const shared = node as SharedNode<K, V>;
      this.reshare(shared, share ?? shared.share);
    }
    if (node === this.tail) return;
    this.unlink(node);
    this.append(node);
  }

  private reshare(node: SharedNode<K, V>, share: string): void {
    this.shares!.remove(node);
    node.share = share;
    this.shares!.add(node);
  }

  private append(node: Node<K, V>): void {
    node.prev = this.tail;
    node.next = undefined;
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
  }

  private unlink(node: Node<K, V>): void {
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = undefined;
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

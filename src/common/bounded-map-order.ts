import { type ShareLinks, Shares } from './bounded-map-shares.js';

/** One entry, in a doubly linked list from the least recently written (head) to the newest (tail). */
export class Node<K, V> {
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
 * The entries of a BoundedMap, by key and in write order: a linked list from the least recently written
 * (`head`) to the newest, and with shares each share's own list too. A list and not the Map's own order:
 * a Map walked from its start after deletions skips every deleted slot until it rehashes, which makes
 * evicting from the front quadratic (14 s for 200,000 evictions of a 60,000-entry Map).
 */
export class WriteOrder<K, V> {
  private readonly map = new Map<K, Node<K, V>>();
  private first: Node<K, V> | undefined = undefined;
  private last: Node<K, V> | undefined = undefined;
  /** With shares: the entries by share (every node is then a SharedNode). */
  private readonly shares: Shares<SharedNode<K, V>> | undefined;

  constructor(shared: boolean) {
    this.shares = shared ? new Shares() : undefined;
  }

  get size(): number {
    return this.map.size;
  }

  /** The least recently written entry. */
  get head(): Node<K, V> | undefined {
    return this.first;
  }

  node(key: K): Node<K, V> | undefined {
    return this.map.get(key);
  }

  /** Entries held by `share` (0 without shares). */
  shareSize(share: string): number {
    return this.shares?.size(share) ?? 0;
  }

  /** Adds a new key as the newest entry (of `share`, with shares). */
  add(key: K, value: V, share: string | undefined): void {
    const added = share === undefined ? new Node(key, value) : new SharedNode(key, value, share);
    this.map.set(key, added);
    this.append(added);
    if (share !== undefined) this.shares!.add(added as SharedNode<K, V>);
  }

  /** Moves `node` to the newest end of the map, and of its share's list (`share`'s when rewritten by it). */
  toTail(node: Node<K, V>, share?: string): void {
    if (this.shares) {
      const shared = node as SharedNode<K, V>;
      this.shares.remove(shared);
      shared.share = share ?? shared.share;
      this.shares.add(shared);
    }
    if (node === this.last) return;
    this.unlink(node);
    this.append(node);
  }

  remove(node: Node<K, V>): void {
    this.map.delete(node.key);
    this.unlink(node);
    this.shares?.remove(node as SharedNode<K, V>);
  }

  /** The live entry to drop for a new key of `share` (`n` keys): the oldest, or the largest share's oldest. */
  victim(share: string | undefined, n: number): Node<K, V> | undefined {
    return this.shares ? this.shares.victim(share, n) : this.first;
  }

  clear(): void {
    this.map.clear();
    this.shares?.clear();
    this.first = this.last = undefined;
  }

  private append(node: Node<K, V>): void {
    node.prev = this.last;
    node.next = undefined;
    if (this.last) this.last.next = node;
    else this.first = node;
    this.last = node;
  }

  private unlink(node: Node<K, V>): void {
    if (node.prev) node.prev.next = node.next;
    else this.first = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.last = node.prev;
    node.prev = node.next = undefined;
  }
}

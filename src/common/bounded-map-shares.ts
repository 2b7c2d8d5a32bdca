/** An entry's place in its share's list (least recently written first). */
export interface ShareLinks<N> {
  share: string;
  sprev: N | undefined;
  snext: N | undefined;
}

interface List<N> {
  head: N | undefined;
  tail: N | undefined;
  size: number;
}

/**
 * The entries of a BoundedMap grouped by share (who filled them, e.g. an app), each share's in write
 * order, so a full map drops the oldest entry of the share holding the most instead of the oldest of
 * all: one share filling the map pushes out its own entries, never those of a share holding fewer.
 * Shares are few (apps, not subjects): choosing the victim walks them.
 */
export class Shares<N extends ShareLinks<N>> {
  private readonly lists = new Map<string, List<N>>();

  /** Number of shares holding at least one entry. */
  get count(): number {
    return this.lists.size;
  }

  /** Entries held by `share`. */
  size(share: string): number {
    return this.lists.get(share)?.size ?? 0;
  }

  /** Links `node` as the newest entry of its share. */
  add(node: N): void {
    let list = this.lists.get(node.share);
    if (list === undefined)
      this.lists.set(node.share, (list = { head: undefined, tail: undefined, size: 0 }));
    node.sprev = list.tail;
    node.snext = undefined;
    if (list.tail) list.tail.snext = node;
    else list.head = node;
    list.tail = node;
    list.size += 1;
  }

  remove(node: N): void {
    const list = this.lists.get(node.share);
    if (list === undefined) return;
    if (node.sprev) node.sprev.snext = node.snext;
    else list.head = node.snext;
    if (node.snext) node.snext.sprev = node.sprev;
    else list.tail = node.sprev;
    node.sprev = node.snext = undefined;
    if (--list.size === 0) this.lists.delete(node.share);
  }

  /**
   * The oldest entry of the share holding the most entries, counting `n` more for `incoming` (the share of
   * the keys being written). On a tie the incoming share loses its own: a write pushes out another share's
   * entry only when that share would still hold more than the writer.
   */
  victim(incoming: string | undefined, n: number): N | undefined {
    let best: List<N> | undefined;
    let most = -1;
    for (const [share, list] of this.lists) {
      const held = list.size + (share === incoming ? n : 0);
      if (held > most || (held === most && share === incoming)) {
        best = list;
        most = held;
      }
    }
    return best?.head;
  }

  clear(): void {
    this.lists.clear();
  }
}

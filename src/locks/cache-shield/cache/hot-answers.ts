import { BoundedMap } from '../../../common/bounded-map.js';

/** What HotAnswers needs of a cached answer (AnswerCache's CachedAnswer). */
interface Entry {
  /** Data generation the answer was read at. */
  gen: string;
  /** Epoch ms until which it is fresh. */
  freshUntil: number;
}

/**
 * A small in-process copy of the hottest fresh answers read from the shared
 * result cache, so a popular key costs no Redis round trip. It never serves
 * anything the shared cache would not: an entry is used only while it is
 * fresh (its own `freshUntil`) and only at the data generation it was read
 * at (the Bloom generation, which every instance advances on a build or an
 * add through Redis pub/sub, makes it stale at once); past either bound the
 * caller reads the shared cache again. Stale serving (degraded mode, open
 * breaker) always reads the shared cache. Bounded: the oldest entry goes first
 * (an entry lives at most its freshness, so a hot key is soon read again).
 */
export class HotAnswers<E extends Entry = Entry> {
  private readonly entries: BoundedMap<string, E>;

  constructor(private readonly maxEntries: number) {
    this.entries = new BoundedMap({
      store: 'shield_hot_answers',
      maxEntries,
      whenFull: 'evict-oldest',
      expired: (e, now) => e.freshUntil <= now,
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry of `key` if it is fresh at `now` and of generation `gen`; else drops it. */
  get(key: string, gen: string, now: number): E | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.gen === gen && e.freshUntil > now) return e;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps an entry just read from the shared cache, if it is fresh at generation `gen`. */
  put(key: string, entry: E, gen: string, now: number): void {
    if (this.maxEntries <= 0 || entry.gen !== gen || entry.freshUntil <= now) return;
    this.entries.set(key, entry, now);
  }

  clear(): void {
    this.entries.clear();
  }
}

import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';
import type { ResultCacheStore } from './result-cache.store.js';

interface Entry {
  value: string;
  until: number;
  /** The app whose request filled it ('' for unsigned requests). */
  owner: string;
}

/**
 * In-process result and null cache: TTL per entry, at most `maxEntries` (a lost entry only costs a backend
 * call). When full, expired entries go first; then the least recently used entry of the owner (the app that
 * filled it) holding the most entries: an app that floods the cache with new keys pushes out its own entries,
 * never those of an app holding fewer (BoundedMap `shareOf`). Owners are verified app ids and '' for
 * unsigned requests, so there are few of them. Reported as store `shield_result_cache`.
 */
export class MemoryResultCacheStore implements ResultCacheStore {
  readonly shared = false;
  private readonly entries: BoundedMap<string, Entry>;

  constructor(
    private readonly maxEntries: number,
    private readonly clock: Clock,
  ) {
    this.entries = new BoundedMap({
      store: 'shield_result_cache',
      maxEntries,
      whenFull: 'evict-oldest',
      expired: (e, now) => e.until <= now,
      shareOf: (e) => e.owner,
    });
  }

  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.touch(key);
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number, owner = ''): Promise<void> {
    if (this.maxEntries === 0) return;
    const now = this.clock.now();
    this.entries.set(key, { value, until: now + ttlMs, owner }, now);
  }
}

import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';
import type { ResultCacheStore } from './result-cache.store.js';

/**
 * In-process result and null cache: TTL per entry, expired entries first, then the least recently
 * used evicted past `maxEntries` (a lost entry only costs a backend call).
 */
export class MemoryResultCacheStore implements ResultCacheStore {
  readonly shared = false;
  private readonly entries: BoundedMap<string, { value: string; until: number }>;

  constructor(
    private readonly maxEntries: number,
    private readonly clock: Clock,
  ) {
    this.entries = new BoundedMap({
      store: 'shield_result_cache',
      maxEntries,
      whenFull: 'evict-oldest',
      expired: (e, now) => e.until <= now,
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

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (this.maxEntries === 0) return;
    const now = this.clock.now();
    this.entries.set(key, { value, until: now + ttlMs }, now);
  }
}

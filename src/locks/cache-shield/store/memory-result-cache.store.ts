import type { Clock } from '../../../common/clock.js';
import type { ResultCacheStore } from './result-cache.store.js';

/** In-process result cache: TTL per entry, least recently used entry evicted past `maxEntries`. */
export class MemoryResultCacheStore implements ResultCacheStore {
  readonly shared = false;
  private readonly entries = new Map<string, { value: string; until: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly clock: Clock,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.until <= this.clock.now()) return undefined;
    this.entries.set(key, e);
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (this.maxEntries === 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.clock.now() + ttlMs });
    while (this.entries.size > this.maxEntries)
      this.entries.delete(this.entries.keys().next().value!);
  }
}

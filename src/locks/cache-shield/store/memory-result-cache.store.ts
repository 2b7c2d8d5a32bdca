import type { Clock } from '../../../common/clock.js';
import type { ResultCacheStore } from './result-cache.store.js';

interface Entry {
  value: string;
  until: number;
  owner: string;
}

/**
 * In-process result cache: TTL per entry, at most `maxEntries`. Past the size, the least recently used entry
 * of the owner (the app that filled it) holding the most entries goes: an app that floods the cache with new
 * keys pushes out its own entries once it holds more than any other app, never the entries of an app that
 * holds fewer. Owners are verified app ids (and '' for unsigned requests), so there are few of them.
 */
export class MemoryResultCacheStore implements ResultCacheStore {
  readonly shared = false;
  /** Every entry, and each owner's entries, in least recently used order. */
  private readonly entries = new Map<string, Entry>();
  private readonly owners = new Map<string, Map<string, Entry>>();

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
    this.remove(key, e);
    if (e.until <= this.clock.now()) return undefined;
    this.add(key, e);
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number, owner = ''): Promise<void> {
    if (this.maxEntries === 0) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.add(key, { value, until: this.clock.now() + ttlMs, owner });
    while (this.entries.size > this.maxEntries) this.evictOne();
  }

  private evictOne(): void {
    let most: Map<string, Entry> | undefined;
    for (const own of this.owners.values()) if (!most || own.size > most.size) most = own;
    const [key, e] = most!.entries().next().value!;
    this.remove(key, e);
  }

  private add(key: string, e: Entry): void {
    this.entries.set(key, e);
    let own = this.owners.get(e.owner);
    if (!own) this.owners.set(e.owner, (own = new Map()));
    own.set(key, e);
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    const own = this.owners.get(e.owner)!;
    own.delete(key);
    if (own.size === 0) this.owners.delete(e.owner);
  }
}

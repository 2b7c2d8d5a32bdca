import type { Stored } from '../core/rule-kind.types.js';
import { BoundedMap } from '../../../common/bounded-map.js';

/** One key's value (a class: two in-object fields, the smallest shape V8 gives an entry). */
class Entry {
  constructor(
    readonly value: Stored,
    /** Epoch ms when the entry expires (every entry has one). */
    readonly expiresAt: number,
  ) {}
}

const SWEEP_EVERY = 4_096;

/**
 * The memory store's keys, each with its expiry as its Redis key would have: a bounded map that
 * refuses a new key rather than drop a live one (docs/rate-limit.md#memory-bounds), and counts the
 * writes that make the next full sweep due.
 */
export class MemoryEntries {
  private readonly map: BoundedMap<string, Entry>;
  private writesSinceSweep = 0;

  constructor(maxEntries: number) {
    this.map = new BoundedMap({
      store: 'rate_limit',
      maxEntries,
      whenFull: 'refuse',
      expired: (e, now) => e.expiresAt <= now,
    });
  }

  /** The live value of `key` at `nowMs`; an expired key is dropped on the way (as Redis does on read). */
  read(key: string, nowMs: number): Stored | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= nowMs) {
      this.map.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** The live value of `key` at `nowMs`, leaving an expired key in place. */
  peek(key: string, nowMs: number): Stored | undefined {
    const e = this.map.get(key);
    return e === undefined || e.expiresAt <= nowMs ? undefined : e.value;
  }

  /** The value of `key`, expired or not (a lease given back keeps what is left of it). */
  held(key: string): Stored | undefined {
    return this.map.get(key)?.value;
  }

  /** Epoch ms when `key` expires, or undefined when it is absent. */
  expiresAt(key: string): number | undefined {
    return this.map.get(key)?.expiresAt;
  }

  /** Writes `key` until `expiresAt`: false when the map is full and refused a new key. */
  set(key: string, value: Stored, expiresAt: number, nowMs: number): boolean {
    return this.map.set(key, new Entry(value, expiresAt), nowMs);
  }

  /** Writes a new value of `key`, which keeps its expiry; nothing when `key` is absent or expired. */
  replace(key: string, value: Stored, nowMs: number): void {
    const e = this.map.get(key);
    if (e === undefined || e.expiresAt <= nowMs) return;
    this.map.set(key, new Entry(value, e.expiresAt), nowMs);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  /** Room for `n` new keys (expired ones dropped first): true when they fit. */
  room(n: number, nowMs: number): boolean {
    return this.map.room(n, nowMs);
  }

  /** Milliseconds to live of a key: -2 when absent or expired (as Redis PTTL). */
  ttl(key: string, nowMs: number): number {
    const e = this.map.get(key);
    return e === undefined || e.expiresAt <= nowMs ? -2 : Math.ceil(e.expiresAt - nowMs);
  }

  /**
   * Counts `n` writes: true once they reach a quarter of the map since the last sweep (at least
   * SWEEP_EVERY), so that a full sweep costs O(1) per write.
   */
  wrote(n: number): boolean {
    this.writesSinceSweep += n;
    return this.writesSinceSweep >= Math.max(SWEEP_EVERY, this.map.size >> 2);
  }

  /** Drops every expired entry. */
  sweep(nowMs: number): void {
    this.writesSinceSweep = 0;
    this.map.sweep(nowMs);
  }

  get size(): number {
    return this.map.size;
  }

  get maxEntries(): number {
    return this.map.maxEntries;
  }

  clear(): void {
    this.map.clear();
  }
}

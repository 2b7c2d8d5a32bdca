import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';
import { NonceStore, NonceStoreUnavailableError } from './nonce-store.js';

export interface MemoryNonceStoreOptions {
  /** Most nonces held at once; beyond it (after a sweep) claims fail closed. */
  maxEntries: number;
  /** Milliseconds between background sweeps of expired nonces. */
  sweepIntervalMs: number;
}

/**
 * In-process nonce store for a single instance without Redis: a TTL map
 * with bounded memory (about 150 bytes a nonce with its key). Expired entries
 * count as absent, are swept from the oldest end in the background, and fully
 * when the map is full (at most once a second); when it is still full the
 * claim fails closed (503 `nonce_store_unavailable`) rather than forget a live
 * nonce, which would allow a replay.
 */
export class MemoryNonceStore implements NonceStore {
  private readonly entries: BoundedMap<string, number>;
  private readonly opts: MemoryNonceStoreOptions;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    opts: Partial<MemoryNonceStoreOptions> = {},
  ) {
    this.opts = { maxEntries: 500_000, sweepIntervalMs: 5_000, ...opts };
    this.entries = new BoundedMap({
      store: 'nonces',
      maxEntries: this.opts.maxEntries,
      whenFull: 'refuse',
      expired: (until, now) => until <= now,
    });
    if (this.opts.sweepIntervalMs > 0) {
      this.timer = setInterval(() => this.sweepOldest(this.clock.now()), this.opts.sweepIntervalMs);
      this.timer.unref();
    }
  }

  /** Nonces currently held (expired ones not yet swept included). */
  get size(): number {
    return this.entries.size;
  }

  claim(appId: string, nonce: string, ttlMs: number): Promise<boolean> {
    const key = `${appId}:${nonce}`;
    const now = this.clock.now();
    const expiresAt = this.entries.get(key);
    if (expiresAt !== undefined && expiresAt > now) return Promise.resolve(false);
    if (expiresAt !== undefined) this.entries.delete(key);
    if (!this.entries.set(key, now + ttlMs, now))
      return Promise.reject(
        new NonceStoreUnavailableError(
          `memory nonce store is full (${this.opts.maxEntries} live nonces)`,
        ),
      );
    return Promise.resolve(true);
  }

  /** Drops every expired nonce (on the timer; the oldest end is trimmed as nonces come too). */
  sweepOldest(now: number): void {
    this.entries.sweep(now);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

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
 * with bounded memory. Expired entries count as absent, are swept from the
 * oldest end in the background, and fully when the map is full; when it is
 * still full the claim fails closed rather than forget a live nonce (which
 * would allow a replay).
 */
export class MemoryNonceStore implements NonceStore {
  private readonly entries = new Map<string, number>();
  private readonly opts: MemoryNonceStoreOptions;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    opts: Partial<MemoryNonceStoreOptions> = {},
  ) {
    this.opts = { maxEntries: 500_000, sweepIntervalMs: 5_000, ...opts };
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
    if (this.entries.size >= this.opts.maxEntries) {
      this.sweepAll(now);
      if (this.entries.size >= this.opts.maxEntries) {
        return Promise.reject(
          new NonceStoreUnavailableError(
            `memory nonce store is full (${this.opts.maxEntries} live nonces)`,
          ),
        );
      }
    }
    this.entries.set(key, now + ttlMs);
    return Promise.resolve(true);
  }

  /** Drops expired entries from the oldest end, up to the first live one (cheap, runs in the background). */
  sweepOldest(now: number): void {
    for (const [key, expiresAt] of this.entries) {
      if (expiresAt > now) return;
      this.entries.delete(key);
    }
  }

  /** Drops every expired entry (when full: TTLs differ per app, so live entries can sit before expired ones). */
  sweepAll(now: number): void {
    for (const [key, expiresAt] of this.entries) if (expiresAt <= now) this.entries.delete(key);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

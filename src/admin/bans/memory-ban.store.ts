import type { BanAddResult, BanStore, StoredBan } from './ban-store.js';

/** Bans of one instance without Redis. Bounded by the `max` every add is given. */
export class MemoryBanStore implements BanStore {
  readonly kind = 'memory';
  private readonly bans = new Map<string, StoredBan>();
  private n = 0;

  version(): Promise<number> {
    return Promise.resolve(this.n);
  }

  all(): Promise<StoredBan[]> {
    return Promise.resolve([...this.bans.values()]);
  }

  add(ban: StoredBan, max: number, nowMs: number): Promise<BanAddResult> {
    if (this.bans.size >= max)
      for (const [id, b] of this.bans) if (b.untilMs <= nowMs) this.bans.delete(id);
    if (this.bans.size >= max) return Promise.resolve({ ok: false, held: this.bans.size });
    this.bans.set(ban.id, ban);
    return Promise.resolve({ ok: true, version: ++this.n });
  }

  remove(id: string): Promise<{ removed: StoredBan | undefined; version: number }> {
    const removed = this.bans.get(id);
    if (removed) {
      this.bans.delete(id);
      this.n += 1;
    }
    return Promise.resolve({ removed, version: this.n });
  }

  watch(): Promise<() => void> {
    return Promise.resolve(() => undefined);
  }
}

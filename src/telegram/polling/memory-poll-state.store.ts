import type { Clock } from '../../common/clock.js';
import type { PollStateStore } from './poll-state.store.js';

/** The poll state of a service without Redis: one instance, a lease and an offset per bot (bounded by the bots). */
export class MemoryPollStateStore implements PollStateStore {
  private readonly leases = new Map<string, { poller: string; until: number }>();
  private readonly offsets = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  lease(
    bot: string,
    poller: string,
    leaseMs: number,
  ): Promise<{ held: true; offset: number } | { held: false; retryMs: number }> {
    const now = this.clock.now();
    const l = this.leases.get(bot);
    if (l && l.poller !== poller && l.until > now)
      return Promise.resolve({ held: false, retryMs: l.until - now });
    this.leases.set(bot, { poller, until: now + leaseMs });
    return Promise.resolve({ held: true, offset: this.offsets.get(bot) ?? 0 });
  }

  commit(
    bot: string,
    poller: string,
    offset: number,
    leaseMs: number,
  ): Promise<number | undefined> {
    const now = this.clock.now();
    const l = this.leases.get(bot);
    if (!l || l.poller !== poller || l.until <= now) return Promise.resolve(undefined);
    const next = Math.max(offset, this.offsets.get(bot) ?? 0);
    this.offsets.set(bot, next);
    l.until = now + leaseMs;
    return Promise.resolve(next);
  }

  release(bot: string, poller: string): Promise<void> {
    if (this.leases.get(bot)?.poller === poller) this.leases.delete(bot);
    return Promise.resolve();
  }
}

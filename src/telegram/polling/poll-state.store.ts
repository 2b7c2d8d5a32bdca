/**
 * Where polling bots keep who polls them and how far they got: a lease (one
 * poller per bot across instances) and the offset of the next update to ask
 * for. Redis with REDIS_URL (shared by every instance), else memory (the
 * single instance). Both pass test/support/poll-state-store.table.ts.
 */
export interface PollStateStore {
  /**
   * Takes or renews the bot's lease for `leaseMs` when nobody else holds it: `{ held: true, offset }`
   * (offset 0 when none was committed), else `{ held: false, retryMs }` (time left on the holder's lease).
   */
  lease(
    bot: string,
    poller: string,
    leaseMs: number,
  ): Promise<{ held: true; offset: number } | { held: false; retryMs: number }>;
  /**
   * Advances the offset (never backwards) and renews the lease, only while `poller` holds it: the offset
   * in force, or undefined when the lease was lost (nothing written).
   */
  commit(bot: string, poller: string, offset: number, leaseMs: number): Promise<number | undefined>;
  /** Gives the lease back if `poller` holds it (a shutdown), so another instance takes over at once. */
  release(bot: string, poller: string): Promise<void>;
}

/** Injection token of the PollStateStore. */
export const POLL_STATE_STORE = Symbol('POLL_STATE_STORE');

/** How long a committed offset is kept: Telegram keeps an update 24 h; a week is ample. */
export const OFFSET_TTL_MS = 7 * 24 * 60 * 60 * 1000;

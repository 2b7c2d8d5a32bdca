import type { Clock } from '../common/clock.js';

/** How a member-count lookup ended (metric label). */
export type LookupOutcome = 'ok' | 'failed' | 'skipped';

export interface GroupSizeOptions {
  /** How long a fetched count is used (then fetched again in the background; the old count meanwhile). */
  ttlMs: number;
  /** After a failed fetch, how long before the chat is tried again. */
  retryMs: number;
  /** Most chats remembered (oldest fetched dropped first). */
  maxEntries: number;
  /** Most fetches running at once; an update that finds them all busy starts none. */
  maxInFlight: number;
}

export const GROUP_SIZE_DEFAULTS: GroupSizeOptions = {
  ttlMs: 60 * 60 * 1000,
  retryMs: 60 * 1000,
  maxEntries: 10_000,
  maxInFlight: 4,
};

interface Entry {
  members?: number;
  until: number;
}

/**
 * Member counts of groups per bot × chat, in memory only (never in Redis: no chat id leaves the process).
 * `members()` answers at once from the cache and never waits: an unknown or expired chat starts a background
 * fetch (one per chat at a time, at most `maxInFlight` at once) whose count later updates use. A failed fetch
 * is counted and ignored (the chat keeps its old count, or none, and is tried again after `retryMs`).
 */
export class GroupSizes {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly fetchCount: (botId: string, chatId: string) => Promise<number>,
    private readonly clock: Clock,
    private readonly onLookup: (botId: string, outcome: LookupOutcome) => void = () => undefined,
    private readonly opts: GroupSizeOptions = GROUP_SIZE_DEFAULTS,
  ) {}

  /** The chat's member count as last fetched; undefined when none yet (a fetch is then under way). */
  members(botId: string, chatId: string): number | undefined {
    const key = `${botId}:${chatId}`;
    const e = this.entries.get(key);
    if (e === undefined || this.clock.now() >= e.until) this.refresh(key, botId, chatId);
    return e?.members;
  }

  /** Chats remembered (bounded by `maxEntries`). */
  get size(): number {
    return this.entries.size;
  }

  private refresh(key: string, botId: string, chatId: string): void {
    if (this.inFlight.has(key)) return;
    if (this.inFlight.size >= this.opts.maxInFlight) return this.onLookup(botId, 'skipped');
    this.inFlight.add(key);
    Promise.resolve(chatId)
      .then((c) => this.fetchCount(botId, c))
      .then(
        (n) => {
          const ok = Number.isSafeInteger(n) && n >= 0;
          const members = ok ? n : this.entries.get(key)?.members;
          this.store(key, members, ok ? this.opts.ttlMs : this.opts.retryMs);
          this.onLookup(botId, ok ? 'ok' : 'failed');
        },
        () => {
          this.store(key, this.entries.get(key)?.members, this.opts.retryMs);
          this.onLookup(botId, 'failed');
        },
      );
  }

  private store(key: string, members: number | undefined, forMs: number): void {
    this.inFlight.delete(key);
    this.entries.delete(key);
    if (this.entries.size >= this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { members, until: this.clock.now() + forMs });
  }
}

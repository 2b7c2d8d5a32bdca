import { MAX_BANS, type BanDimension, type BanEntry } from './ban.types.js';

/**
 * The bans in force on this instance, in memory: the request path reads only
 * this (no Redis call). Filled whole by the admin sync (pub/sub and the
 * periodic version check); bounded by MAX_BANS; an entry stops matching at
 * its `untilMs` and is dropped at the next fill.
 */
export class BanTable {
  private byKey = new Map<string, BanEntry[]>();
  private dims: readonly BanDimension[] = [];
  private count = 0;

  /** Entries held (lapsed ones included until the next fill). */
  get size(): number {
    return this.count;
  }

  /** The dimensions some ban names (the request path resolves only these). */
  dimensions(): readonly BanDimension[] {
    return this.dims;
  }

  /** Replaces every entry: the live ones, at most MAX_BANS (the ones lasting longest are kept). */
  replace(entries: readonly BanEntry[], nowMs: number): void {
    const live = entries
      .filter((e) => e.untilMs > nowMs)
      .sort((a, b) => b.untilMs - a.untilMs)
      .slice(0, MAX_BANS);
    const byKey = new Map<string, BanEntry[]>();
    const dims = new Set<BanDimension>();
    for (const e of live) {
      const k = `${e.dimension}:${e.subject}`;
      const list = byKey.get(k);
      if (list) list.push(e);
      else byKey.set(k, [e]);
      dims.add(e.dimension);
    }
    this.byKey = byKey;
    this.dims = [...dims];
    this.count = live.length;
  }

  list(): BanEntry[] {
    return [...this.byKey.values()].flat();
  }

  /** The ban in force on `subject` of `dimension` for a request of `scope` (its app or bot), if any. */
  find(
    dimension: BanDimension,
    subject: string,
    scope: string | undefined,
    nowMs: number,
  ): BanEntry | undefined {
    const list = this.byKey.get(`${dimension}:${subject}`);
    if (list === undefined) return undefined;
    for (const e of list) if (e.untilMs > nowMs && (e.app === null || e.app === scope)) return e;
    return undefined;
  }
}

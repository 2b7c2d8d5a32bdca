interface Entry {
  /** Epoch ms (app clock) until which the bucket refuses. */
  until: number;
  /** Cost of the refused request: a request of at least this cost is refused too. */
  cost: number;
  /** Effective limit and window, for the headers of a local refusal. */
  limit: number;
}

/**
 * Buckets known to refuse, so a flood from one subject is answered in-process
 * until its retry time, without a Redis call. Sound because a bucket only
 * refills with time: a request costing at least as much as the refused one
 * cannot pass before `until`. Bounded: oldest entries go first.
 */
export class DenyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries: number) {}

  /** Milliseconds the key still refuses a request of `cost`, or 0. */
  refusing(key: string, cost: number, now: number): { retryMs: number; limit: number } | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return cost >= e.cost ? { retryMs: e.until - now, limit: e.limit } : undefined;
  }

  add(key: string, until: number, cost: number, limit: number): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { until, cost, limit });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

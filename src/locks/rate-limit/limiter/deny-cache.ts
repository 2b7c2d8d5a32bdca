import { BoundedMap } from '../../../common/bounded-map.js';

interface Entry {
  /** Epoch ms (app clock) until which the bucket refuses. */
  until: number;
  /** Cost of the refused request: a request of at least this cost is refused too. */
  cost: number;
  /** Effective limit, for the headers of a local refusal. */
  limit: number;
  /** One request is asking Redis whether the bucket refilled; the others wait for its answer. */
  probing: boolean;
  /** Requests refused here since the entry was made: strikes for a penalty rule, handed over with the next decision. */
  hits: number;
}

/** How long a probe may take before another request probes again. */
const PROBE_MS = 1_000;

/**
 * Buckets known to refuse, so a flood from one subject is answered in-process
 * until its retry time, without a Redis call. Sound because a bucket only
 * refills with time: a request costing at least as much as the refused one
 * cannot pass before `until`. When that time comes, ONE request probes Redis
 * (single flight) while the others keep being refused: at `until` exactly one
 * such request's worth has refilled. Bounded: lapsed entries go first, then the
 * oldest (a dropped entry only sends its next request to the store, which decides).
 */
export class DenyCache {
  private readonly entries: BoundedMap<string, Entry>;

  constructor(private readonly maxEntries: number) {
    this.entries = new BoundedMap({
      store: 'deny_cache',
      maxEntries,
      whenFull: 'evict-oldest',
      expired: (e, now) => !e.probing && e.hits === 0 && e.until + PROBE_MS <= now,
    });
  }

  /** The refusal in force for a request of `cost` on `key`, or undefined (ask the store). */
  refusing(key: string, cost: number, now: number): { retryMs: number; limit: number } | undefined {
    const e = this.entries.get(key);
    if (e === undefined || cost < e.cost) return undefined;
    if (now < e.until) {
      e.hits += 1;
      return { retryMs: e.until - now, limit: e.limit };
    }
    if (e.probing) {
      this.entries.delete(key);
      return undefined;
    }
    // This request probes; the others are refused until it answers (or PROBE_MS passes).
    e.probing = true;
    e.until = now + PROBE_MS;
    return undefined;
  }

  add(key: string, until: number, cost: number, limit: number, now: number): void {
    if (this.maxEntries <= 0) return;
    this.entries.set(key, { until, cost, limit, probing: false, hits: 0 }, now);
  }

  /** Local refusals of `key` not yet reported to the store (and forgets them). */
  takeHits(key: string): number {
    const e = this.entries.get(key);
    if (e === undefined || e.hits === 0) return 0;
    const n = e.hits;
    e.hits = 0;
    return n;
  }

  /** The bucket admitted a request: no refusal stands. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

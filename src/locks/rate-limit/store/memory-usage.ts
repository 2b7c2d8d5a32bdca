import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';
import { MAX_USAGE_MODELS, type UsageWrite } from '../core/usage-keys.js';

class Bucket {
  constructor(
    readonly fields: Map<string, number>,
    /** Epoch ms when the bucket expires. */
    public expiresAt: number,
  ) {}
}

/** Usage buckets held in memory at most (each a few models' counts): past it the oldest bucket is dropped. */
export const MEMORY_USAGE_BUCKETS = 20_000;

/**
 * Usage buckets of the memory store (no Redis, or failMode `local`): the same fields as `lua/ratelimit_settle.lua`
 * writes, the same `other` past MAX_USAGE_MODELS, the same TTLs. Bounded: a full table drops the oldest bucket
 * (usage is a report, not a defence: losing a bucket never lets a request through).
 */
export class MemoryUsage {
  private readonly buckets: BoundedMap<string, Bucket>;

  constructor(
    private readonly clock: Clock,
    maxBuckets = MEMORY_USAGE_BUCKETS,
  ) {
    this.buckets = new BoundedMap({
      store: 'rate_limit_usage',
      maxEntries: maxBuckets,
      whenFull: 'evict-oldest',
      expired: (b, now) => b.expiresAt <= now,
    });
  }

  write(list: readonly UsageWrite[]): void {
    const now = this.clock.now();
    for (const w of list) {
      let b = this.buckets.get(w.key);
      if (b === undefined || b.expiresAt <= now) b = new Bucket(new Map(), 0);
      let m = w.model;
      if (!b.fields.has(`${m}:p`) && b.fields.size >= MAX_USAGE_MODELS * 3) m = 'other';
      const add = (f: string, n: number) => b.fields.set(f, (b.fields.get(f) ?? 0) + n);
      add(`${m}:p`, w.prompt);
      add(`${m}:c`, w.completion);
      add(`${m}:s`, w.spend);
      b.expiresAt = now + w.ttlMs;
      this.buckets.set(w.key, b, now);
    }
  }

  read(keys: readonly string[]): Record<string, string>[] {
    const now = this.clock.now();
    return keys.map((k) => {
      const b = this.buckets.get(k);
      if (b === undefined || b.expiresAt <= now) return {};
      return Object.fromEntries([...b.fields].map(([f, n]) => [f, String(n)]));
    });
  }
}

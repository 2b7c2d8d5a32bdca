/** Cumulative bucket counts of one histogram series: `le` upper bounds (seconds, ascending, last may be Infinity). */
export interface Buckets {
  le: number[];
  counts: number[];
}

/** Call latency over a recent window, from histogram bucket deltas. */
export interface LatencySummary {
  /** Length of the window actually covered, in seconds. */
  windowSeconds: number;
  /** Calls that ended in the window. */
  calls: number;
  /** Estimated quantiles in milliseconds (linear within a bucket, as PromQL's histogram_quantile); null without calls. */
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

/**
 * The q-quantile (0–1) of cumulative bucket counts, in the unit of `le`,
 * interpolated linearly inside the bucket that holds it; a quantile in the
 * +Inf bucket is the highest finite bound. Null when there is no count.
 */
export function bucketQuantile(b: Buckets, q: number): number | null {
  const total = b.counts[b.counts.length - 1] ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  for (let i = 0; i < b.le.length; i++) {
    if (b.counts[i]! < rank) continue;
    const upper = b.le[i]!;
    const lower = i === 0 ? 0 : b.le[i - 1]!;
    if (!Number.isFinite(upper)) return lower;
    const below = i === 0 ? 0 : b.counts[i - 1]!;
    const inBucket = b.counts[i]! - below;
    return inBucket <= 0 ? upper : lower + (upper - lower) * ((rank - below) / inBucket);
  }
  return b.le[b.le.length - 1] ?? null;
}

/**
 * Keeps snapshots of cumulative histogram buckets per key (e.g. backend) for
 * `keepMs`, so that the latency of the last minute can be read as the
 * difference between now and a minute ago, the way Prometheus' `rate()` does.
 */
export class LatencyWindow {
  private readonly snapshots: { at: number; byKey: Map<string, Buckets> }[] = [];

  constructor(private readonly keepMs: number) {}

  add(now: number, byKey: Map<string, Buckets>): void {
    this.snapshots.push({ at: now, byKey });
    while (this.snapshots.length > 2 && this.snapshots[1]!.at <= now - this.keepMs)
      this.snapshots.shift();
  }

  /** Latency per key between the oldest snapshot in the window and the newest. */
  recent(): Record<string, LatencySummary> {
    const first = this.snapshots[0];
    const last = this.snapshots[this.snapshots.length - 1];
    if (!first || !last || first === last) return {};
    const out: Record<string, LatencySummary> = {};
    for (const [key, now] of last.byKey) {
      const before = first.byKey.get(key);
      const counts = now.counts.map((n, i) => Math.max(0, n - (before?.counts[i] ?? 0)));
      const d = { le: now.le, counts };
      const ms = (q: number): number | null => {
        const v = bucketQuantile(d, q);
        return v === null ? null : Math.round(v * 1e4) / 10;
      };
      out[key] = {
        windowSeconds: Math.round((last.at - first.at) / 1000),
        calls: counts[counts.length - 1] ?? 0,
        p50Ms: ms(0.5),
        p95Ms: ms(0.95),
        p99Ms: ms(0.99),
      };
    }
    return out;
  }
}

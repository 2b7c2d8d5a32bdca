import type { InstanceCounts, LockCounts, OutcomeCounts } from './stats-store.js';

/** Outcomes counted in one step, per route policy and lock; zero counts are left out. */
export type StepCounts = Record<string, Record<string, Partial<OutcomeCounts>>>;

/** One point of the counter series. */
export interface SeriesPoint {
  /** Epoch milliseconds at the end of the step. */
  at: number;
  /** Length of the step in seconds (divide a count by it for a rate per second). */
  seconds: number;
  /** Lock outcomes counted during the step, summed over the live instances: `{ policy: { lock: counts } }`. */
  byPolicy: StepCounts;
}

/**
 * A rolling window of counter deltas, built from each instance's running
 * totals. An instance seen for the first time only sets its baseline (its
 * totals so far belong to no step); a total that went down means the
 * instance's counters restarted, so the new total is the step's count.
 * Instances that drop out are forgotten.
 */
export class CounterSeries {
  private readonly last = new Map<string, LockCounts>();
  private readonly points: SeriesPoint[] = [];
  private lastAt: number | undefined;

  /** `windowMs`: how far back points are kept (milliseconds). */
  constructor(private readonly windowMs: number) {}

  /** Adds the step ending at `now`; the first call only records baselines. */
  add(now: number, instances: readonly InstanceCounts[]): SeriesPoint | undefined {
    const byPolicy: StepCounts = {};
    const seen = new Set<string>();
    for (const inst of instances) {
      seen.add(inst.instance);
      const before = this.last.get(inst.instance);
      if (before && this.lastAt !== undefined) addDeltas(byPolicy, before, inst.counts);
      this.last.set(inst.instance, inst.counts);
    }
    for (const id of [...this.last.keys()]) if (!seen.has(id)) this.last.delete(id);
    const from = this.lastAt;
    this.lastAt = now;
    while (this.points.length > 0 && this.points[0]!.at <= now - this.windowMs) this.points.shift();
    if (from === undefined || now <= from) return undefined;
    const point = { at: now, seconds: (now - from) / 1000, byPolicy };
    this.points.push(point);
    return point;
  }

  /** Points newer than `after` (epoch ms), oldest first; every point in the window without it. */
  since(after?: number): SeriesPoint[] {
    return after === undefined ? [...this.points] : this.points.filter((p) => p.at > after);
  }
}

function addDeltas(out: StepCounts, before: LockCounts, now: LockCounts): void {
  for (const [lock, byPolicy] of Object.entries(now)) {
    for (const [policy, counts] of Object.entries(byPolicy)) {
      const prev = before[lock]?.[policy];
      for (const [outcome, n] of Object.entries(counts) as [keyof OutcomeCounts, number][]) {
        const was = prev?.[outcome] ?? 0;
        const d = n >= was ? n - was : n;
        if (d <= 0) continue;
        const target = ((out[policy] ??= {})[lock] ??= {});
        target[outcome] = (target[outcome] ?? 0) + d;
      }
    }
  }
}

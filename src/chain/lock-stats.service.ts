import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service.js';
import type { LockOutcome } from './lock.types.js';

type Counts = Record<LockOutcome, number>;

const zero = (): Counts => ({
  allowed: 0,
  rejected: 0,
  shadow_rejected: 0,
  short_circuited: 0,
  skipped: 0,
});

/** One lock and policy: its counts, and its Prometheus cells per outcome (looked up once). */
interface Entry {
  counts: Counts;
  cells: Partial<Record<LockOutcome, { n: number }>>;
}

/** Per lock and per policy outcome counters (this instance), mirrored to Prometheus. */
@Injectable()
export class LockStats {
  private readonly counts = new Map<string, Map<string, Entry>>();

  constructor(private readonly metrics: MetricsService) {}

  record(lock: string, policy: string, outcome: LockOutcome, n = 1): void {
    let byPolicy = this.counts.get(lock);
    if (!byPolicy) this.counts.set(lock, (byPolicy = new Map()));
    let e = byPolicy.get(policy);
    if (!e) byPolicy.set(policy, (e = { counts: zero(), cells: {} }));
    e.counts[outcome] += n;
    // The Prometheus cell of this outcome, kept with the counts: no label lookup per request.
    (e.cells[outcome] ??= this.metrics.lockDecisions.cell({ lock, policy, outcome })).n += n;
  }

  /** `{ lock: { policy: { allowed, rejected, … } } }` since this instance started. */
  snapshot(): Record<string, Record<string, Counts>> {
    const out: Record<string, Record<string, Counts>> = {};
    for (const [lock, byPolicy] of this.counts) {
      out[lock] = {};
      for (const [policy, e] of byPolicy) out[lock][policy] = { ...e.counts };
    }
    return out;
  }
}

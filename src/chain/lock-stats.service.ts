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

/** Per lock and per policy outcome counters (this instance), mirrored to Prometheus. */
@Injectable()
export class LockStats {
  private readonly counts = new Map<string, Map<string, Counts>>();

  constructor(private readonly metrics: MetricsService) {}

  record(lock: string, policy: string, outcome: LockOutcome, n = 1): void {
    let byPolicy = this.counts.get(lock);
    if (!byPolicy) this.counts.set(lock, (byPolicy = new Map()));
    let c = byPolicy.get(policy);
    if (!c) byPolicy.set(policy, (c = zero()));
    c[outcome] += n;
    this.metrics.lockDecisions.inc({ lock, policy, outcome }, n);
  }

  /** `{ lock: { policy: { allowed, rejected, … } } }` since this instance started. */
  snapshot(): Record<string, Record<string, Counts>> {
    const out: Record<string, Record<string, Counts>> = {};
    for (const [lock, byPolicy] of this.counts) {
      out[lock] = {};
      for (const [policy, c] of byPolicy) out[lock][policy] = { ...c };
    }
    return out;
  }
}

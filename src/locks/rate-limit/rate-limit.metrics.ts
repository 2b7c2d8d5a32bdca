import type { Counter, Gauge } from 'prom-client';
import type { MetricsService } from '../../metrics/metrics.service.js';

/** The rate limiter's Prometheus series. Labels: policy, rule, dimension, kinds — never a subject. */
export class RateLimitMetrics {
  readonly decisions: Counter<'policy' | 'rule' | 'outcome'>;
  readonly skipped: Counter<'policy' | 'rule' | 'dimension'>;
  readonly storeErrors: Counter<'policy' | 'kind'>;
  readonly fallbacks: Counter<'policy' | 'mode'>;
  readonly denyCacheHits: Counter<'policy'>;
  readonly degraded: Counter<'policy'>;
  readonly refunds: Counter;
  readonly liveInstances: Gauge;
  readonly clockSkew: Gauge;

  private readonly children = new Map<string, { inc(n?: number): void }>();

  /** Counts one rule outcome (label children cached: this runs for every rule of every request). */
  decision(policy: string, rule: string, outcome: 'allowed' | 'rejected' | 'shadow_rejected'): void {
    const k = `${policy}\u0000${rule}\u0000${outcome}`;
    let c = this.children.get(k);
    if (c === undefined) this.children.set(k, (c = this.decisions.labels({ policy, rule, outcome })));
    c.inc();
  }

  constructor(m: MetricsService) {
    this.decisions = m.counter('rampart_ratelimit_decisions_total', 'Rate-limit rule outcomes: allowed, rejected, shadow_rejected (would have blocked)', ['policy', 'rule', 'outcome']);
    this.skipped = m.counter('rampart_ratelimit_skipped_total', 'Rules skipped because the request has no subject for their dimension (or exempt: critical routes and global rules)', ['policy', 'rule', 'dimension']);
    this.storeErrors = m.counter('rampart_ratelimit_store_errors_total', 'Rate-limit store failures by kind (unavailable, error)', ['policy', 'kind']);
    this.fallbacks = m.counter('rampart_ratelimit_fallback_total', 'Requests decided by the failMode while Redis is unavailable', ['policy', 'mode']);
    this.denyCacheHits = m.counter('rampart_ratelimit_deny_cache_hits_total', 'Requests refused from the local deny cache without a Redis call', ['policy']);
    this.degraded = m.counter('rampart_ratelimit_degraded_total', 'Requests over the global soft threshold (degraded before reject)', ['policy']);
    this.refunds = m.counter('rampart_ratelimit_refunds_total', 'Cross-slot reservations given back because another slot refused');
    this.liveInstances = m.gauge('rampart_ratelimit_live_instances', 'Live instances seen in the Redis heartbeat set (last known while Redis is down)');
    this.clockSkew = m.gauge('rampart_ratelimit_clock_skew_ms', 'Redis TIME minus this instance clock, milliseconds (last decision)');
  }
}

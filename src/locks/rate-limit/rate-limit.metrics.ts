import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';

type Outcome = 'allowed' | 'rejected' | 'shadow_rejected' | 'duplicate';
type Tally = Record<Outcome, number>;

/** The rate limiter's Prometheus series. Labels: policy, rule, dimension, kinds — never a subject. */
@Injectable()
export class RateLimitMetrics {
  readonly decisions: Counter<'policy' | 'rule' | 'outcome'>;
  readonly skipped: Counter<'policy' | 'rule' | 'dimension'>;
  readonly malformedForwards: Counter;
  readonly storeErrors: Counter<'policy' | 'kind'>;
  readonly fallbacks: Counter<'policy' | 'mode'>;
  readonly denyCacheHits: Counter<'policy'>;
  readonly degraded: Counter<'policy'>;
  readonly refunds: Counter;
  readonly liveInstances: Gauge;
  readonly clockSkew: Gauge;

  /**
   * Rule outcomes run for every rule of every request: they are counted in plain numbers here and handed
   * to prom-client when the registry is read (no label hashing on the hot path; /metrics is always exact).
   */
  private readonly tallies = new Map<string, Map<string, Tally>>();
  private skewMs: number | undefined;

  /** Counts one rule outcome. */
  decision(policy: string, rule: string, outcome: Outcome): void {
    let byRule = this.tallies.get(policy);
    if (byRule === undefined) this.tallies.set(policy, (byRule = new Map()));
    let t = byRule.get(rule);
    if (t === undefined)
      byRule.set(rule, (t = { allowed: 0, rejected: 0, shadow_rejected: 0, duplicate: 0 }));
    t[outcome] += 1;
  }

  /** Redis TIME minus the app clock of the last decision (exported when the registry is read). */
  skew(ms: number): void {
    this.skewMs = ms;
  }

  constructor(m: MetricsService) {
    const flushDecisions = (): void => {
      for (const [policy, byRule] of this.tallies) {
        for (const [rule, t] of byRule) {
          for (const outcome of ['allowed', 'rejected', 'shadow_rejected', 'duplicate'] as const) {
            if (t[outcome] === 0) continue;
            this.decisions.inc({ policy, rule, outcome }, t[outcome]);
            t[outcome] = 0;
          }
        }
      }
    };
    this.decisions = new Counter({
      name: 'rampart_ratelimit_decisions_total',
      help: 'Rate-limit rule outcomes: allowed, rejected, shadow_rejected (would have blocked); duplicate (rule = the claim)',
      labelNames: ['policy', 'rule', 'outcome'],
      registers: [m.registry],
      collect: flushDecisions,
    });
    this.clockSkew = new Gauge({
      name: 'rampart_ratelimit_clock_skew_ms',
      help: 'Redis TIME minus this instance clock, milliseconds (last decision)',
      registers: [m.registry],
      collect: () => {
        if (this.skewMs !== undefined) this.clockSkew.set(this.skewMs);
      },
    });
    this.malformedForwards = m.counter(
      'rampart_ratelimit_forwarded_address_rejected_total',
      'X-Forwarded-For headers from a trusted proxy with a hop that is not an address (the peer was used)',
      [],
    );
    this.skipped = m.counter(
      'rampart_ratelimit_skipped_total',
      'Rules skipped because the request has no subject for their dimension (or exempt: critical routes and global rules)',
      ['policy', 'rule', 'dimension'],
    );
    this.storeErrors = m.counter(
      'rampart_ratelimit_store_errors_total',
      'Rate-limit store failures by kind (unavailable, error)',
      ['policy', 'kind'],
    );
    this.fallbacks = m.counter(
      'rampart_ratelimit_fallback_total',
      'Requests decided by the failMode while Redis is unavailable',
      ['policy', 'mode'],
    );
    this.denyCacheHits = m.counter(
      'rampart_ratelimit_deny_cache_hits_total',
      'Requests refused from the local deny cache without a Redis call',
      ['policy'],
    );
    this.degraded = m.counter(
      'rampart_ratelimit_degraded_total',
      'Requests over the global soft threshold (degraded before reject)',
      ['policy'],
    );
    this.refunds = m.counter(
      'rampart_ratelimit_refunds_total',
      'Cross-slot reservations given back because another slot refused',
    );
    this.liveInstances = m.gauge(
      'rampart_ratelimit_live_instances',
      'Live instances seen in the Redis heartbeat set (last known while Redis is down)',
    );
  }
}

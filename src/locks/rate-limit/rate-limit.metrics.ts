import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import type { HotCounter } from '../../metrics/hot-counter.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { UsageMetrics } from './usage.metrics.js';

type Outcome = 'allowed' | 'rejected' | 'shadow_rejected' | 'duplicate' | 'reentered';

/** What became of a request a ban matched: 403 `banned`, dropped by a product (onLimit flag), or only observed. */
export type BanOutcome = 'refused' | 'dropped' | 'shadow';

/** The rate limiter's Prometheus series. Labels: policy, rule, dimension, kinds — never a subject. */
@Injectable()
export class RateLimitMetrics {
  /** Rule outcomes run for every rule of every request: a HotCounter (no label hashing per request). */
  readonly decisions: HotCounter<'policy' | 'rule' | 'outcome'>;
  readonly skipped: Counter<'policy' | 'rule' | 'dimension'>;
  readonly malformedForwards: Counter;
  readonly storeErrors: Counter<'policy' | 'kind'>;
  readonly fallbacks: Counter<'policy' | 'mode'>;
  readonly denyCacheHits: HotCounter<'policy'>;
  readonly degraded: HotCounter<'policy'>;
  /** Requests a ban matched (read from memory, so counted per request without a label hash). */
  readonly banned: HotCounter<'policy' | 'dimension' | 'outcome'>;
  readonly refunds: Counter;
  /** Tokens and spend of answers, at settlement. */
  readonly usage: UsageMetrics;
  readonly liveInstances: Gauge;
  readonly clockSkew: Gauge;
  /** failMode `queue`: how each wait for Redis ended (redis, fallback, full). */
  readonly failQueue: Counter<'policy' | 'outcome'>;
  readonly failQueueWaiting: Gauge;

  private skewMs: number | undefined;

  /** Counts one rule outcome. */
  decision(policy: string, rule: string, outcome: Outcome): void {
    this.decisions.inc({ policy, rule, outcome });
  }

  /** Redis TIME minus the app clock of the last decision (exported when the registry is read). */
  skew(ms: number): void {
    this.skewMs = ms;
  }

  constructor(m: MetricsService) {
    this.decisions = m.hotCounter(
      'rampart_ratelimit_decisions_total',
      'Rate-limit rule outcomes: allowed, rejected, shadow_rejected (would have blocked); duplicate, reentered (rule = the claim)',
      ['policy', 'rule', 'outcome'],
    );
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
    this.denyCacheHits = m.hotCounter(
      'rampart_ratelimit_deny_cache_hits_total',
      'Requests refused from the local deny cache without a Redis call',
      ['policy'],
    );
    this.degraded = m.hotCounter(
      'rampart_ratelimit_degraded_total',
      'Requests over the global soft threshold (degraded before reject)',
      ['policy'],
    );
    this.banned = m.hotCounter(
      'rampart_ratelimit_banned_total',
      'Requests a ban matched, by the ban dimension (user, chat, ip, app); outcome: refused (403 banned), dropped (onLimit flag), shadow (would have been refused)',
      ['policy', 'dimension', 'outcome'],
    );
    this.refunds = m.counter(
      'rampart_ratelimit_refunds_total',
      'Cross-slot reservations given back because another slot refused',
    );
    this.usage = new UsageMetrics(m);
    this.failQueue = m.counter(
      'rampart_ratelimit_fail_queue_total',
      'failMode queue: requests that waited for Redis, by outcome (redis: decided there; fallback: the wait ran out; full: no room)',
      ['policy', 'outcome'],
    );
    this.failQueueWaiting = m.gauge(
      'rampart_ratelimit_fail_queue_waiting',
      'failMode queue: requests waiting for Redis on this instance now',
    );
    this.liveInstances = m.gauge(
      'rampart_ratelimit_live_instances',
      'Live instances seen in the Redis heartbeat set (last known while Redis is down)',
    );
  }
}

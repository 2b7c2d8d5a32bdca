import { Injectable } from '@nestjs/common';
import type { Counter, Gauge } from 'prom-client';
import type { HotCounter } from '../../metrics/hot-counter.js';
import { MetricsService } from '../../metrics/metrics.service.js';

/** Why the shield answered a request itself (the Rampart-Shield header names the same reasons). */
export type ShieldReason =
  | 'bloom-absent'
  | 'no-keys'
  | 'null-cache'
  | 'cache-hit'
  | 'stale'
  | 'over-quota'
  | 'coalesced'
  | 'too-long';

/** The cache shield's Prometheus series. Labels: policy, filter, reasons — never a query, id or client. */
@Injectable()
export class ShieldMetrics {
  readonly interceptions: HotCounter<'policy' | 'reason' | 'mode'>;
  readonly forwarded: HotCounter<'policy'>;
  readonly lookups: HotCounter<'filter' | 'verdict'>;
  readonly falsePositives: Counter<'filter'>;
  readonly falseNegatives: Counter<'filter'>;
  readonly measuredFp: Gauge<'filter'>;
  readonly targetFp: Gauge<'filter'>;
  readonly fill: Gauge<'filter'>;
  readonly version: Gauge<'filter'>;
  readonly items: Gauge<'filter'>;
  readonly stale: Gauge<'filter'>;
  readonly builds: Counter<'filter' | 'result'>;
  readonly buildSeconds: Gauge<'filter'>;
  readonly cache: HotCounter<'policy' | 'result'>;
  readonly cacheErrors: Counter<'op'>;

  constructor(m: MetricsService) {
    this.interceptions = m.hotCounter(
      'rampart_shield_interceptions_total',
      'Requests the cache shield answered itself, by reason (shadow: would have answered)',
      ['policy', 'reason', 'mode'],
    );
    this.forwarded = m.hotCounter(
      'rampart_shield_forwarded_total',
      'Requests the cache shield passed on towards the backend',
      ['policy'],
    );
    this.lookups = m.hotCounter(
      'rampart_shield_bloom_lookups_total',
      'Bloom verdicts: absent, maybe, bypassed (filter off, not built or stale)',
      ['filter', 'verdict'],
    );
    this.falsePositives = m.counter(
      'rampart_shield_bloom_false_positives_total',
      '"Maybe present" verdicts whose answer was empty',
      ['filter'],
    );
    this.falseNegatives = m.counter(
      'rampart_shield_bloom_false_negatives_total',
      '"Definitely absent" verdicts the backend contradicted (shadow mode only; must stay 0)',
      ['filter'],
    );
    this.measuredFp = m.gauge(
      'rampart_shield_bloom_measured_fp_ratio',
      'False-positive rate measured on live traffic since the active build',
      ['filter'],
    );
    this.targetFp = m.gauge(
      'rampart_shield_bloom_target_fp_ratio',
      'False-positive rate the active build was sized for',
      ['filter'],
    );
    this.fill = m.gauge(
      'rampart_shield_bloom_fill_ratio',
      'Share of bits set in the active build (about 0.5 at its sized capacity)',
      ['filter'],
    );
    this.version = m.gauge('rampart_shield_bloom_version', 'Active build version', ['filter']);
    this.items = m.gauge(
      'rampart_shield_bloom_items',
      'Keys in the active build plus keys added since',
      ['filter'],
    );
    this.stale = m.gauge(
      'rampart_shield_bloom_stale',
      '1 while writes outside the app make the filter untrusted (lookups bypassed)',
      ['filter'],
    );
    this.builds = m.counter(
      'rampart_shield_bloom_builds_total',
      'Builds by outcome (activated, refused, failed)',
      ['filter', 'result'],
    );
    this.buildSeconds = m.gauge(
      'rampart_shield_bloom_build_seconds',
      'Duration of the last build made by this instance',
      ['filter'],
    );
    this.cache = m.hotCounter(
      'rampart_shield_cache_total',
      'Result/null cache lookups: hit, null, stale, miss, bypassed',
      ['policy', 'result'],
    );
    this.cacheErrors = m.counter(
      'rampart_shield_cache_errors_total',
      'Result cache store failures (the cache is bypassed for a moment)',
      ['op'],
    );
  }
}

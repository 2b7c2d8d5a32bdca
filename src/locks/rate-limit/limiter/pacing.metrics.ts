import { Injectable } from '@nestjs/common';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsService } from '../../../metrics/metrics.service.js';

/** Outcome of a paced request: held and went on, the client went away while held, or no place to wait (503). */
export type PacedOutcome = 'passed' | 'client_gone' | 'full';

/** Paced bursts (docs/rate-limit.md#paced-bursts): what waited, how long, and how many wait now. No subject label. */
@Injectable()
export class PacingMetrics {
  readonly paced: Counter<'policy' | 'outcome'>;
  readonly wait: Histogram<'policy'>;
  readonly waiting: Gauge;

  constructor(m: MetricsService) {
    this.paced = m.counter(
      'rampart_ratelimit_paced_total',
      'Requests a paced rule held for their slot (outcome passed, client_gone) or could not hold (full: 503 pacing_full)',
      ['policy', 'outcome'],
    );
    this.wait = m.histogram(
      'rampart_ratelimit_paced_wait_seconds',
      'How long paced requests were held for their reserved slot, seconds',
      ['policy'],
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    );
    this.waiting = m.gauge(
      'rampart_ratelimit_paced_waiting',
      'Requests held by paced rules on this instance now (at most rateLimit.maxPaced)',
    );
  }
}

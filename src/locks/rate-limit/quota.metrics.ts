import { Injectable } from '@nestjs/common';
import type { Counter, Gauge } from 'prom-client';
import type { HotCounter } from '../../metrics/hot-counter.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import {
  type HealthSample,
  LOAD_LEVELS,
  type LoadAction,
  type LoadLevel,
} from './core/load.types.js';

const ACTIONS: LoadAction[] = ['none', 'cache', 'reduce', 'refuse', 'exempt'];

/** Metrics of dynamic quotas: the load level, each policy's action at it, sheds, and risk. No subject as a label. */
@Injectable()
export class QuotaMetrics {
  readonly level: Gauge;
  readonly fill: Gauge;
  readonly eventLoop: Gauge;
  readonly admitted: Gauge;
  readonly action: Gauge<'policy' | 'action'>;
  readonly shed: Counter<'policy'>;
  readonly shedFirst: Counter<'policy' | 'class'>;
  readonly riskObserved: Counter<'result'>;
  readonly riskBands: HotCounter<'policy' | 'multiplier'>;

  constructor(m: MetricsService) {
    this.level = m.gauge('rampart_load_level', 'Service-wide load level: 0 normal, 1 soft, 2 hard');
    this.fill = m.gauge('rampart_load_fill', 'Fill (0–1) of the fullest global bucket');
    this.eventLoop = m.gauge(
      'rampart_load_event_loop_delay_seconds',
      "This instance's event-loop delay p99 over the last load poll (when rateLimit.load.eventLoopDelay is set)",
    );
    this.admitted = m.gauge(
      'rampart_load_admitted_p99_seconds',
      "This instance's p99 latency of admitted requests over the last load poll (when rateLimit.load.admittedP99 is set)",
    );
    this.action = m.gauge(
      'rampart_load_policy_action',
      'What each policy does at the current load level (1 = this action: none, cache, reduce, refuse, exempt)',
      ['policy', 'action'],
    );
    this.shed = m.counter(
      'rampart_load_shed_total',
      'Requests refused 503 load_shed at load level hard',
      ['policy'],
    );
    this.shedFirst = m.counter(
      'rampart_load_shed_first_total',
      "Requests refused 503 load_shed at the front door under this instance's own-health pressure, by class (suspect, anonymous)",
      ['policy', 'class'],
    );
    this.riskObserved = m.counter(
      'rampart_risk_observations_total',
      'Risk observations: raised (a signal raised a score) or dropped (store unavailable)',
      ['result'],
    );
    this.riskBands = m.hotCounter(
      'rampart_risk_decisions_total',
      'Rate-limit decisions by the risk multiplier they applied',
      ['policy', 'multiplier'],
    );
  }

  /** Sets the level gauges and one action per policy. */
  show(
    level: LoadLevel,
    fill: number,
    actions: Record<string, LoadAction>,
    health?: HealthSample,
  ): void {
    this.level.set(LOAD_LEVELS.indexOf(level));
    this.fill.set(fill);
    if (health?.eventLoopMs !== undefined) this.eventLoop.set(health.eventLoopMs / 1000);
    if (health?.admittedMs !== undefined) this.admitted.set(health.admittedMs / 1000);
    for (const [policy, a] of Object.entries(actions))
      for (const x of ACTIONS) this.action.set({ policy, action: x }, x === a ? 1 : 0);
  }
}

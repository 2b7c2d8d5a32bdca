import { Injectable, Logger } from '@nestjs/common';
import { MetricsService } from '../../metrics/metrics.service.js';
import { type BreakerSeries, breakerSeries } from './breaker-series.js';
import { transitionReason } from './breaker-transition-reason.js';
import {
  BREAKER_PHASES,
  type BreakerPhase,
  type BreakerRefusal,
  type CallOutcome,
  type TripReason,
} from './circuit-breaker.types.js';
import type { LimitSnapshot } from './adaptive/adaptive.types.js';

/** Prometheus series of the breakers. Labels: backend, policy, state, reason, outcome — never request data. */
@Injectable()
export class BreakerMetrics {
  private readonly logger = new Logger('CircuitBreaker');
  private readonly s: BreakerSeries;

  constructor(metrics: MetricsService) {
    this.s = breakerSeries(metrics);
  }

  limit(backend: string, s: LimitSnapshot): void {
    this.s.limitGauge.set({ backend }, s.limit);
    if (s.minRttMs !== undefined) this.s.minRtt.set({ backend }, s.minRttMs / 1000);
    if (s.sampleRttMs !== undefined) this.s.sampleRtt.set({ backend }, s.sampleRttMs / 1000);
  }

  waiting(backend: string, n: number): void {
    this.s.waitingGauge.set({ backend }, n);
  }

  waited(backend: string, outcome: 'slot' | 'timeout' | 'gone', seconds: number): void {
    this.s.waitTime.observe({ backend, outcome }, seconds);
  }

  tripped(backend: string, reason: TripReason): void {
    this.s.trips.inc({ backend, reason });
  }

  phase(backend: string, phase: BreakerPhase, admitted: number): void {
    for (const p of BREAKER_PHASES) this.s.state.set({ backend, state: p }, p === phase ? 1 : 0);
    this.s.admitted.set({ backend }, admitted);
  }

  admittedShare(backend: string, share: number): void {
    this.s.admitted.set({ backend }, share);
  }

  transition(backend: string, from: BreakerPhase, to: BreakerPhase, why?: TripReason): void {
    this.s.transitions.inc({ backend, from, to });
    this.logger.warn({
      msg: `circuit breaker ${backend}: ${from} → ${to}`,
      backend,
      from,
      to,
      reason: transitionReason(from, to, why),
    });
  }

  slots(backend: string, n: number): void {
    this.s.inFlight.set({ backend }, n);
  }

  rejected(
    backend: string,
    policy: string,
    reason: BreakerRefusal,
    mode: 'enforce' | 'shadow',
  ): void {
    this.s.rejections.inc({ backend, policy, reason, mode });
  }

  staleServed(backend: string, policy: string): void {
    this.s.stale.inc({ backend, policy });
  }

  call(backend: string, outcome: CallOutcome, probe: boolean, seconds: number): void {
    if (outcome === 'timeout') this.s.timeouts.inc({ backend });
    this.s.latency.observe({ backend, outcome, probe: String(probe) }, seconds);
  }
}

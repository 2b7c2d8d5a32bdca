import { Injectable, Logger } from '@nestjs/common';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';
import {
  BREAKER_PHASES,
  type BreakerPhase,
  type BreakerRefusal,
  type CallOutcome,
  type TripReason,
} from './circuit-breaker.types.js';
import type { LimitSnapshot } from './adaptive/gradient-limit.js';

/** Prometheus series of the breakers. Labels: backend, policy, state, reason, outcome — never request data. */
@Injectable()
export class BreakerMetrics {
  private readonly logger = new Logger('CircuitBreaker');
  private readonly state: Gauge<'backend' | 'state'>;
  private readonly admitted: Gauge<'backend'>;
  private readonly inFlight: Gauge<'backend'>;
  private readonly transitions: Counter<'backend' | 'from' | 'to'>;
  private readonly rejections: Counter<'backend' | 'policy' | 'reason' | 'mode'>;
  private readonly stale: Counter<'backend' | 'policy'>;
  private readonly timeouts: Counter<'backend'>;
  private readonly latency: Histogram<'backend' | 'outcome' | 'probe'>;
  private readonly limitGauge: Gauge<'backend'>;
  private readonly minRtt: Gauge<'backend'>;
  private readonly sampleRtt: Gauge<'backend'>;
  private readonly waitingGauge: Gauge<'backend'>;
  private readonly trips: Counter<'backend' | 'reason'>;
  private readonly waitTime: Histogram<'backend' | 'outcome'>;

  constructor(metrics: MetricsService) {
    this.state = metrics.gauge(
      'rampart_breaker_state',
      'Breaker phase per backend, one-hot (closed, open, half_open, recovering, forced_open, forced_closed)',
      ['backend', 'state'],
    );
    this.admitted = metrics.gauge(
      'rampart_breaker_admitted_ratio',
      'Share of calls the breaker lets through now (0 open, ramp step while recovering, 1 closed)',
      ['backend'],
    );
    this.inFlight = metrics.gauge(
      'rampart_breaker_in_flight',
      'Bulkhead slots held: admitted calls from the handler start until it settles (a stream: its upstream last chunk), as this instance sees them; queued calls are rampart_breaker_waiting',
      ['backend'],
    );
    this.transitions = metrics.counter(
      'rampart_breaker_transitions_total',
      'Breaker phase changes',
      ['backend', 'from', 'to'],
    );
    this.rejections = metrics.counter(
      'rampart_breaker_rejections_total',
      'Calls the breaker refused (mode shadow: would have refused)',
      ['backend', 'policy', 'reason', 'mode'],
    );
    this.stale = metrics.counter(
      'rampart_breaker_stale_served_total',
      'Refused calls answered with a stale cached result',
      ['backend', 'policy'],
    );
    this.timeouts = metrics.counter(
      'rampart_breaker_timeouts_total',
      'Calls the breaker gave up on (and aborted, in enforce mode)',
      ['backend'],
    );
    this.latency = metrics.histogram(
      'rampart_breaker_call_duration_seconds',
      'Calls through a breaker by backend, outcome (success, failure, timeout, client_error, client_gone) and probe (true, false)',
      ['backend', 'outcome', 'probe'],
      [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    );
    this.limitGauge = metrics.gauge(
      'rampart_breaker_concurrency_limit',
      'Adaptive concurrency limit per backend: calls it may have in flight now (absent when fixed)',
      ['backend'],
    );
    this.minRtt = metrics.gauge(
      'rampart_breaker_min_rtt_seconds',
      'Unloaded latency of the backend the adaptive limit compares against (lowest window average)',
      ['backend'],
    );
    this.sampleRtt = metrics.gauge(
      'rampart_breaker_sample_rtt_seconds',
      'Average latency of the last window the adaptive limit judged',
      ['backend'],
    );
    this.waitingGauge = metrics.gauge(
      'rampart_breaker_waiting',
      'Calls waiting (maxWaitMs) for a slot of a full bulkhead (queue length)',
      ['backend'],
    );
    this.waitTime = metrics.histogram(
      'rampart_breaker_wait_seconds',
      'Time calls waited in the queue for a slot, by backend and outcome (slot, timeout, gone)',
      ['backend', 'outcome'],
      [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    );
    this.trips = metrics.counter(
      'rampart_breaker_trips_total',
      'Circuits opened, by reason (errors, slow_calls, probe_failed)',
      ['backend', 'reason'],
    );
  }

  limit(backend: string, s: LimitSnapshot): void {
    this.limitGauge.set({ backend }, s.limit);
    if (s.minRttMs !== undefined) this.minRtt.set({ backend }, s.minRttMs / 1000);
    if (s.sampleRttMs !== undefined) this.sampleRtt.set({ backend }, s.sampleRttMs / 1000);
  }

  waiting(backend: string, n: number): void {
    this.waitingGauge.set({ backend }, n);
  }

  waited(backend: string, outcome: 'slot' | 'timeout' | 'gone', seconds: number): void {
    this.waitTime.observe({ backend, outcome }, seconds);
  }

  tripped(backend: string, reason: TripReason): void {
    this.trips.inc({ backend, reason });
  }

  phase(backend: string, phase: BreakerPhase, admitted: number): void {
    for (const p of BREAKER_PHASES) this.state.set({ backend, state: p }, p === phase ? 1 : 0);
    this.admitted.set({ backend }, admitted);
  }

  admittedShare(backend: string, share: number): void {
    this.admitted.set({ backend }, share);
  }

  transition(backend: string, from: BreakerPhase, to: BreakerPhase, why?: TripReason): void {
    this.transitions.inc({ backend, from, to });
    this.logger.warn({
      msg: `circuit breaker ${backend}: ${from} → ${to}`,
      backend,
      from,
      to,
      reason: transitionReason(from, to, why),
    });
  }

  slots(backend: string, n: number): void {
    this.inFlight.set({ backend }, n);
  }

  rejected(
    backend: string,
    policy: string,
    reason: BreakerRefusal,
    mode: 'enforce' | 'shadow',
  ): void {
    this.rejections.inc({ backend, policy, reason, mode });
  }

  staleServed(backend: string, policy: string): void {
    this.stale.inc({ backend, policy });
  }

  call(backend: string, outcome: CallOutcome, probe: boolean, seconds: number): void {
    if (outcome === 'timeout') this.timeouts.inc({ backend });
    this.latency.observe({ backend, outcome, probe: String(probe) }, seconds);
  }
}

/** Why a breaker moved, for the warning an operator reads. */
export function transitionReason(from: BreakerPhase, to: BreakerPhase, why?: TripReason): string {
  if (to === 'forced_open' || to === 'forced_closed') return 'forced by an admin';
  if (from === 'forced_open' || from === 'forced_closed') return 'admin force lifted';
  if (to === 'open' && why === 'slow_calls')
    return from === 'half_open' ? 'a probe was slow' : 'slow calls over the threshold';
  if (to === 'open') {
    if (from === 'closed') return 'error rate or timeouts over the threshold';
    if (from === 'half_open') return 'a probe failed';
    return 'a call failed while recovering';
  }
  if (to === 'half_open') return 'reset timeout elapsed: probing';
  if (to === 'recovering') return 'probes succeeded: ramping traffic back up';
  return from === 'recovering' ? 'recovered: full traffic' : 'reset by an admin';
}

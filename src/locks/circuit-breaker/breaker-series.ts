import type { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsService } from '../../metrics/metrics.service.js';

/** The Prometheus series of the breakers, registered once (BreakerMetrics writes them). */
export interface BreakerSeries {
  readonly state: Gauge<'backend' | 'state'>;
  readonly admitted: Gauge<'backend'>;
  readonly inFlight: Gauge<'backend'>;
  readonly transitions: Counter<'backend' | 'from' | 'to'>;
  readonly rejections: Counter<'backend' | 'policy' | 'reason' | 'mode'>;
  readonly stale: Counter<'backend' | 'policy'>;
  readonly timeouts: Counter<'backend'>;
  readonly latency: Histogram<'backend' | 'outcome' | 'probe'>;
  readonly limitGauge: Gauge<'backend'>;
  readonly minRtt: Gauge<'backend'>;
  readonly sampleRtt: Gauge<'backend'>;
  readonly waitingGauge: Gauge<'backend'>;
  readonly trips: Counter<'backend' | 'reason'>;
  readonly waitTime: Histogram<'backend' | 'outcome'>;
}

/** Registers the breakers' series. Labels: backend, policy, state, reason, outcome — never request data. */
export function breakerSeries(metrics: MetricsService): BreakerSeries {
  return {
    state: metrics.gauge(
      'rampart_breaker_state',
      'Breaker phase per backend, one-hot (closed, open, half_open, recovering, forced_open, forced_closed)',
      ['backend', 'state'],
    ),
    admitted: metrics.gauge(
      'rampart_breaker_admitted_ratio',
      'Share of calls the breaker lets through now (0 open, ramp step while recovering, 1 closed)',
      ['backend'],
    ),
    inFlight: metrics.gauge(
      'rampart_breaker_in_flight',
      'Bulkhead slots held: admitted calls from the handler start until it settles (a stream: its upstream last chunk), as this instance sees them; queued calls are rampart_breaker_waiting',
      ['backend'],
    ),
    transitions: metrics.counter('rampart_breaker_transitions_total', 'Breaker phase changes', [
      'backend',
      'from',
      'to',
    ]),
    rejections: metrics.counter(
      'rampart_breaker_rejections_total',
      'Calls the breaker refused (mode shadow: would have refused)',
      ['backend', 'policy', 'reason', 'mode'],
    ),
    stale: metrics.counter(
      'rampart_breaker_stale_served_total',
      'Refused calls answered with a stale cached result',
      ['backend', 'policy'],
    ),
    timeouts: metrics.counter(
      'rampart_breaker_timeouts_total',
      'Calls the breaker gave up on (and aborted, in enforce mode)',
      ['backend'],
    ),
    latency: metrics.histogram(
      'rampart_breaker_call_duration_seconds',
      'Calls through a breaker by backend, outcome (success, failure, timeout, client_error, client_gone) and probe (true, false)',
      ['backend', 'outcome', 'probe'],
      [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    ),
    limitGauge: metrics.gauge(
      'rampart_breaker_concurrency_limit',
      'Adaptive concurrency limit per backend: calls it may have in flight now (absent when fixed)',
      ['backend'],
    ),
    minRtt: metrics.gauge(
      'rampart_breaker_min_rtt_seconds',
      'Unloaded latency of the backend the adaptive limit compares against (lowest window average)',
      ['backend'],
    ),
    sampleRtt: metrics.gauge(
      'rampart_breaker_sample_rtt_seconds',
      'Average latency of the last window the adaptive limit judged',
      ['backend'],
    ),
    waitingGauge: metrics.gauge(
      'rampart_breaker_waiting',
      'Calls waiting (maxWaitMs) for a slot of a full bulkhead (queue length)',
      ['backend'],
    ),
    waitTime: metrics.histogram(
      'rampart_breaker_wait_seconds',
      'Time calls waited in the queue for a slot, by backend and outcome (slot, timeout, gone)',
      ['backend', 'outcome'],
      [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    ),
    trips: metrics.counter(
      'rampart_breaker_trips_total',
      'Circuits opened, by reason (errors, slow_calls, probe_failed)',
      ['backend', 'reason'],
    ),
  };
}

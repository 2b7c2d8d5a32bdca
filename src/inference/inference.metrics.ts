import type { Counter, Histogram } from 'prom-client';
import type { MetricsService } from '../metrics/metrics.service.js';

/** How inference calls went: their duration by backend, mode and outcome; streams cut at their limits. */
export class InferenceMetrics {
  readonly duration: Histogram<'backend' | 'mode' | 'outcome'>;
  readonly cutoffs: Counter<'reason'>;

  constructor(metrics: MetricsService) {
    this.cutoffs = metrics.counter(
      'rampart_inference_stream_cutoffs_total',
      'Streamed answers cut at their limits, by reason (max_duration, no_read)',
      ['reason'],
    );
    this.duration = metrics.histogram(
      'rampart_inference_duration_seconds',
      'Inference calls by backend (local, upstream), mode (json, stream, models) and outcome (ok, rejected, failed, timeout, client_closed, error)',
      ['backend', 'mode', 'outcome'],
      [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    );
  }
}

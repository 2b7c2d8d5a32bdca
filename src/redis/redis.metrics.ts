import type { MetricsService } from '../metrics/metrics.service.js';

/** The Redis series: command failures by script and kind, and Lua script latency as the app sees it. */
export function redisMetrics(metrics: MetricsService) {
  return {
    errors: metrics.counter(
      'rampart_redis_errors_total',
      'Redis command failures by script and kind',
      ['script', 'kind'],
    ),
    latency: metrics.histogram(
      'rampart_redis_script_seconds',
      'Lua script latency seen by the app',
      ['script'],
      [0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
    ),
  };
}

import { describe, expect, it } from 'vitest';
import { MetricsService } from '../../metrics/metrics.service.js';
import { RateLimitMetrics } from './rate-limit.metrics.js';

describe(RateLimitMetrics.name, () => {
  it('should export exact rule outcome counts and the last clock skew whenever the registry is read', async () => {
    const metrics = new MetricsService();
    const m = new RateLimitMetrics(metrics);
    m.decision('search', 'per-ip', 'allowed');
    m.decision('search', 'per-ip', 'allowed');
    m.decision('search', 'global', 'shadow_rejected');
    m.skew(-3);
    m.skew(7);
    let text = await metrics.registry.metrics();
    expect(text).toMatch(
      /rampart_ratelimit_decisions_total\{policy="search",rule="per-ip",outcome="allowed"\} 2\n/,
    );
    expect(text).toMatch(
      /rampart_ratelimit_decisions_total\{policy="search",rule="global",outcome="shadow_rejected"\} 1\n/,
    );
    expect(text).toMatch(/rampart_ratelimit_clock_skew_ms 7\n/);
    m.decision('search', 'per-ip', 'allowed');
    m.decision('search', 'per-ip', 'rejected');
    text = await metrics.registry.metrics();
    expect(text).toMatch(
      /rampart_ratelimit_decisions_total\{policy="search",rule="per-ip",outcome="allowed"\} 3\n/,
    );
    expect(text).toMatch(
      /rampart_ratelimit_decisions_total\{policy="search",rule="per-ip",outcome="rejected"\} 1\n/,
    );
    expect(text).toMatch(
      /rampart_ratelimit_decisions_total\{policy="search",rule="global",outcome="shadow_rejected"\} 1\n/,
    );
  });
});

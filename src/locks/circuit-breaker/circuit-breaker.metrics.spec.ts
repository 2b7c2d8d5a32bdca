import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MetricsService } from '../../metrics/metrics.service.js';
import { transitionReason } from './breaker-transition-reason.js';
import { BreakerMetrics } from './circuit-breaker.metrics.js';

describe(BreakerMetrics.name, () => {
  afterEach(() => vi.restoreAllMocks());

  it('should log a warning naming the backend and the reason on every phase change', () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    new BreakerMetrics(new MetricsService()).transition('inference', 'closed', 'open');
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({
        backend: 'inference',
        from: 'closed',
        to: 'open',
        reason: 'error rate or timeouts over the threshold',
      }),
    );
  });

  it('should give each transition a reason an operator can act on', () => {
    expect(transitionReason('open', 'half_open')).toMatch(/probing/);
    expect(transitionReason('half_open', 'open')).toMatch(/probe failed/);
    expect(transitionReason('half_open', 'recovering')).toMatch(/probes succeeded/);
    expect(transitionReason('recovering', 'closed')).toMatch(/recovered/);
    expect(transitionReason('closed', 'forced_open')).toMatch(/admin/);
  });
});

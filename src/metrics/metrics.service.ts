import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { HotCounter } from './hot-counter.js';
import { registerMemoryStoreMetrics } from './memory-store.metrics.js';

/**
 * One Prometheus registry per app instance (tests run several in one
 * process). Labels are route templates, policy, lock and rule names — never
 * a user id, chat id, IP or query text.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly hot = new Map<string, HotCounter<string>>();

  readonly httpDuration = new Histogram({
    name: 'rampart_http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly lockDecisions = this.hotCounter(
    'rampart_lock_decisions_total',
    'Lock outcomes by lock, policy and outcome (allowed, rejected, shadow_rejected, short_circuited, skipped)',
    ['lock', 'policy', 'outcome'],
  );

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'rampart_' });
    registerMemoryStoreMetrics(this.registry);
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Counter<L>;
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A counter incremented on every request (see HotCounter); the same one for the same name. */
  hotCounter<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): HotCounter<L> {
    let hot = this.hot.get(name) as HotCounter<L> | undefined;
    if (!hot) this.hot.set(name, (hot = new HotCounter(this.registry, name, help, labelNames)));
    return hot;
  }

  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Gauge<L>;
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets?: number[],
  ): Histogram<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Histogram<L>;
    return new Histogram({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(buckets ? { buckets } : {}),
    });
  }
}

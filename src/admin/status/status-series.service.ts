import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Histogram } from 'prom-client';
import { CLOCK, type Clock } from '../../common/clock.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { AdminStatus } from './admin-status.service.js';
import { CounterSeries, SeriesPoint } from './counter-series.js';
import { Buckets, LatencySummary, LatencyWindow } from './latency-window.js';

/** How far back the series goes: the console's and the dashboard's 15 minutes. */
export const SERIES_WINDOW_MS = 15 * 60_000;
/** Window of the breaker latency the admin API reports. */
export const LATENCY_WINDOW_MS = 60_000;
/** The circuit breaker's call histogram (see circuit-breaker.metrics.ts). */
const BREAKER_HISTOGRAM = 'rampart_breaker_call_duration_seconds';

export interface SeriesView {
  /** Milliseconds between two points. */
  stepMs: number;
  /** Milliseconds the series covers at most. */
  windowMs: number;
  /** Server time (epoch ms): pass the last point's `at` as `since` to get only newer points. */
  now: number;
  points: SeriesPoint[];
}

/**
 * Every `admin.seriesStepMs`, turns the summed lock counters of the live
 * instances into one point of a 15-minute series (for charts without a
 * Prometheus), and snapshots this instance's breaker latency histogram for
 * the last-minute latency the breakers view shows. The series (a Redis read)
 * is sampled only while someone reads it — a `view` within the last
 * 15 minutes; the first `view` after a quiet spell starts it afresh. An
 * instance nobody asks sends Redis nothing for it (without Redis: always sampled).
 */
@Injectable()
export class StatusSeries implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('StatusSeries');
  private series = new CounterSeries(SERIES_WINDOW_MS);
  private readonly latency = new LatencyWindow(LATENCY_WINDOW_MS);
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  private readAt = -Infinity;

  constructor(
    private readonly status: AdminStatus,
    private readonly metrics: MetricsService,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sample(), this.settings.seriesStepMs);
    this.timer.unref();
    void this.sample();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async view(since?: number): Promise<SeriesView> {
    const watched = this.watched();
    this.readAt = this.clock.now();
    if (!watched) {
      // After a quiet spell: a fresh baseline, not one step spanning the gap.
      this.series = new CounterSeries(SERIES_WINDOW_MS);
      await this.sample();
    }
    return {
      stepMs: this.settings.seriesStepMs,
      windowMs: SERIES_WINDOW_MS,
      now: this.clock.now(),
      points: this.series.since(since),
    };
  }

  /** Breaker call latency over about the last minute, per backend (this instance's calls). */
  breakerLatency(): Record<string, LatencySummary> {
    return this.latency.recent();
  }

  /** Someone read the series within its window (or it costs no Redis read): keep sampling it. */
  private watched(): boolean {
    return !this.status.shared || this.clock.now() - this.readAt < SERIES_WINDOW_MS;
  }

  async sample(): Promise<void> {
    const now = this.clock.now();
    try {
      this.latency.add(now, await this.breakerBuckets());
      if (this.watched()) this.series.add(now, (await this.status.instanceCounts()).all);
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn(`could not sample counters: ${(err as Error).message}`);
      this.failing = true;
    }
  }

  /** Cumulative buckets of the breaker histogram per backend, summed over outcomes and probes. */
  private async breakerBuckets(): Promise<Map<string, Buckets>> {
    const out = new Map<string, Buckets>();
    const h = this.metrics.registry.getSingleMetric(BREAKER_HISTOGRAM) as Histogram | undefined;
    if (!h) return out;
    const byBackend = new Map<string, Map<number, number>>();
    for (const v of (await h.get()).values) {
      if (!v.metricName?.endsWith('_bucket')) continue;
      const backend = String(v.labels.backend ?? '');
      const le = v.labels.le === '+Inf' ? Infinity : Number(v.labels.le);
      const m = byBackend.get(backend) ?? new Map<number, number>();
      m.set(le, (m.get(le) ?? 0) + v.value);
      byBackend.set(backend, m);
    }
    for (const [backend, m] of byBackend) {
      const le = [...m.keys()].sort((a, b) => a - b);
      out.set(backend, { le, counts: le.map((x) => m.get(x)!) });
    }
    return out;
  }
}

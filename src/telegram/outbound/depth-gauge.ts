import type { Clock } from '../../common/clock.js';
import type { OutboundMetrics } from './outbound.metrics.js';
import type { OutboundQueueStore } from './queue/outbound-queue.store.js';

/** How often the depth gauge is read while the worker has work (when idle: every 2 × `safetyPollMs`). */
const DEPTH_MS = 5_000;

/** The queue depth gauge: every DEPTH_MS while the worker finds work, every 2 × `safetyPollMs` when idle. */
export class DepthGauge {
  private timer?: NodeJS.Timeout;
  private readAt = 0;

  constructor(
    private readonly queue: OutboundQueueStore,
    private readonly metrics: OutboundMetrics,
    private readonly clock: Clock,
    /** When the worker last found work (epoch ms). */
    private readonly lastWorkAt: () => number,
    private readonly safetyPollMs: () => number,
  ) {}

  /** Reads now and on a timer (no-op when started). */
  start(): void {
    if (this.timer) return;
    this.read();
    this.timer = setInterval(() => this.read(), DEPTH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private read(): void {
    const now = this.clock.now();
    const busy = now - this.lastWorkAt() < 2 * DEPTH_MS;
    if (!busy && now - this.readAt < 2 * this.safetyPollMs()) return;
    this.readAt = now;
    this.queue.depth().then(
      (n) => this.metrics.depth.set(n),
      () => undefined,
    );
  }
}

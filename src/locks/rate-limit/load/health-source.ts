import { Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { LoopMonitor, PROCESS_LOOP_MONITOR } from '../../../common/loop-monitor.js';
import { rawResponse, requestState } from '../../../http/http-context.js';
import type { HealthSample } from '../core/load.types.js';

/** Where the load monitor reads this instance's own health (tests inject a fixed one). */
export interface HealthSource {
  /** The inputs over the window since the last read (expected `windowMs` long); starts a new window. */
  read(windowMs: number): HealthSample;
  /** What the last `read` returned (undefined before the first): read by the front door, resets nothing. */
  readonly last?: HealthSample;
  /** Switches on the measures the settings ask for (a fixed source ignores it). */
  start?(inputs: { eventLoop: boolean; latency: boolean }): void;
}

export const HEALTH_SOURCE = Symbol('HEALTH_SOURCE');

/** Admitted latencies kept per window: past it, one in every `n` replaces a random slot (reservoir). */
const RESERVOIR = 1_024;

/**
 * This process's health, measured: Node's event-loop delay histogram
 * (`monitorEventLoopDelay`, 10 ms resolution, a new window every read: the
 * process's one LoopMonitor, shared with the breaker's loop wait; this is its
 * one windowed reader) and a bounded reservoir of the latencies of admitted
 * requests (filled by the rate-limit lock when a response finishes). Each
 * measures only once switched on, so an instance without health thresholds
 * pays nothing.
 */
@Injectable()
export class NodeHealthSource implements HealthSource, OnApplicationShutdown {
  private loop = false;
  private latencies = new Float64Array(RESERVOIR);
  private seen = 0;
  private latency = false;
  private lastRead: number | undefined;
  last: HealthSample | undefined;
  private readonly monitor: LoopMonitor;

  constructor(@Optional() monitor?: LoopMonitor) {
    this.monitor = monitor ?? PROCESS_LOOP_MONITOR;
  }

  start(inputs: { eventLoop: boolean; latency: boolean }): void {
    if (inputs.eventLoop && !this.loop) {
      this.loop = true;
      this.monitor.use(this);
      this.monitor.window(); // the first window starts now, even if a breaker started the monitor earlier
    }
    this.latency ||= inputs.latency;
  }

  /**
   * An admitted request: its latency (from the request's arrival, less `heldMs` a paced rule held it: waiting
   * for its slot is not slowness) is recorded when its response finishes.
   */
  track(ctx: LockContext, heldMs = 0): void {
    if (!this.latency) return;
    const from = (requestState(ctx.req).startedAt ?? performance.now()) + heldMs;
    rawResponse(ctx.reply).once('finish', () => this.admitted(performance.now() - from));
  }

  /** One admitted request finished after `ms`. */
  admitted(ms: number): void {
    const i = this.seen++;
    if (i < RESERVOIR) this.latencies[i] = ms;
    else {
      const j = Math.floor(Math.random() * (i + 1));
      if (j < RESERVOIR) this.latencies[j] = ms;
    }
  }

  read(windowMs: number): HealthSample {
    const out: HealthSample = {};
    const now = performance.now();
    if (this.loop) {
      // A loop blocked longer than the window may leave it without a
      // sample: the lateness of this read itself (the poll timer's lag) then counts as the delay.
      const { p99Ms } = this.monitor.window();
      const lag = this.lastRead === undefined ? 0 : Math.max(0, now - this.lastRead - windowMs);
      out.eventLoopMs = Math.max(p99Ms, lag);
    }
    this.lastRead = now;
    const n = Math.min(this.seen, RESERVOIR);
    if (n > 0) {
      const sorted = this.latencies.slice(0, n).sort();
      out.admittedMs = sorted[Math.min(n - 1, Math.ceil(n * 0.99) - 1)];
    }
    this.seen = 0;
    this.last = out;
    return out;
  }

  onApplicationShutdown(): void {
    this.monitor.release(this);
  }
}

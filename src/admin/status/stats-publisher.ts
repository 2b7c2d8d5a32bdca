import { Logger } from '@nestjs/common';
import type { HeartbeatRiders } from '../../redis/heartbeat-riders.js';
import type { InstanceCounts, StatsStore } from './stats-store.js';

/** What makes two snapshots the same for a reader: the policy version and the counts. */
const sameness = (s: InstanceCounts): string => JSON.stringify([s.policyVersion, s.counts]);

/**
 * Writes this instance's snapshot to the stats store: every `intervalMs`
 * when it changed; an unchanged one rides on the instance heartbeat (no call
 * of its own) or, when nothing carried it for two periods (no heartbeat, or
 * it failed), is written on its own. The period is the longer of
 * `intervalMs` and the heartbeat's; a reader drops an instance silent for
 * three periods (`liveMs`), so a live one is never dropped.
 */
export class StatsPublisher {
  private readonly logger = new Logger('AdminStatus');
  private timer: NodeJS.Timeout | undefined;
  private unride: (() => void) | undefined;
  private failing = false;
  private lastPublished = '';
  private publishedAt = 0;

  constructor(
    private readonly store: StatsStore,
    private readonly intervalMs: number,
    private readonly snapshot: () => InstanceCounts,
    private readonly riders: HeartbeatRiders,
  ) {}

  start(): void {
    const store = this.store;
    if (store.ride)
      this.unride = this.riders.add({
        ride: () => store.ride!(this.snapshot()),
        written: (ride) => {
          const snap = JSON.parse(ride.value) as InstanceCounts;
          this.wrote(sameness(snap), snap.at);
        },
      });
    this.timer = setInterval(() => void this.publish(), this.intervalMs);
    this.timer.unref();
    void this.publish();
  }

  /** Milliseconds between two writes of an unchanged snapshot at most (heartbeat or own timer). */
  periodMs(): number {
    const beat = this.store.ride ? (this.riders.periodMs ?? 0) : 0;
    return Math.max(this.intervalMs, beat);
  }

  /** A reader keeps the instances that wrote within this many milliseconds. */
  liveMs(): number {
    return 3 * this.periodMs();
  }

  stop(): void {
    clearInterval(this.timer);
    this.unride?.();
  }

  async publish(): Promise<void> {
    const snap = this.snapshot();
    const same = sameness(snap);
    if (same === this.lastPublished && snap.at - this.publishedAt < 2 * this.periodMs()) return;
    try {
      await this.store.publish(snap);
      this.wrote(same, snap.at);
    } catch (err) {
      if (!this.failing)
        this.logger.warn(`could not publish lock counters: ${(err as Error).message}`);
      this.failing = true;
    }
  }

  private wrote(same: string, at: number): void {
    if (at < this.publishedAt) return;
    this.lastPublished = same;
    this.publishedAt = at;
    this.failing = false;
  }
}

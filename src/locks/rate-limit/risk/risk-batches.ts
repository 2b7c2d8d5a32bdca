import { Logger } from '@nestjs/common';
import type { HeartbeatBlock, HeartbeatRiders } from '../../../redis/heartbeat-riders.js';
import type { QuotaMetrics } from '../quota.metrics.js';
import type { RiskStore } from '../store/risk/risk-store.js';
import type { ObserveParams, RiskObservation } from '../core/risk.types.js';

/** A batch is written as soon as this many observations are queued (bursts: about 1/64 call per update). */
const MAX_BATCH = 64;

/**
 * The queued risk observations of one instance, per store, and when they are
 * written: each must be written within its delay (`withinMs`). When the
 * remote store can ride (`batchArgs`) and the instance heartbeat comes within
 * that delay, it waits for the next beat (no call of its own); otherwise (a
 * signal's 20 ms, the memory store, no heartbeat) a timer writes the queue in
 * one script call per store, carrying whatever else is queued. MAX_BATCH
 * queued: written at once. Bound: MAX_BATCH observations per store.
 */
export class RiskBatches {
  private readonly logger = new Logger('RiskRecorder');
  private readonly queue = new Map<RiskStore, RiskObservation[]>();
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled flush runs (clock ms), to bring it forward for a signal. */
  private due = 0;
  readonly unride: () => void;

  constructor(
    private readonly remote: RiskStore,
    private readonly params: ObserveParams,
    private readonly riders: HeartbeatRiders,
    private readonly m: QuotaMetrics,
  ) {
    const sizes = new WeakMap<HeartbeatBlock, number>();
    this.unride = riders.addBlock({
      block: () => {
        const batch = this.queue.get(remote);
        if (!batch?.length || !remote.batchArgs) return undefined;
        this.queue.delete(remote);
        const block = remote.batchArgs(batch, params);
        sizes.set(block, batch.length);
        return block;
      },
      settled: (block, n) => this.counted(n, sizes.get(block) ?? 0),
    });
  }

  push(store: RiskStore, o: RiskObservation, withinMs: number): void {
    let q = this.queue.get(store);
    if (!q) this.queue.set(store, (q = []));
    q.push(o);
    if (q.length >= MAX_BATCH) {
      void this.flush();
      return;
    }
    const beat = this.riders.periodMs;
    // The next heartbeat carries it, within `withinMs` (never a signal's few ms: a beat is ≥ 100 ms apart).
    if (store === this.remote && store.batchArgs && beat !== undefined && beat <= withinMs) return;
    const due = Date.now() + withinMs;
    if (this.timer && this.due <= due) return;
    clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => void this.flush(), withinMs);
    this.timer.unref();
  }

  /** Writes what is queued now (signals, a full batch, tests, shutdown): one script call per store. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = [...this.queue];
    this.queue.clear();
    await Promise.all(
      batches.map(async ([store, batch]) =>
        this.counted(
          await store.observe(batch, this.params).catch((err: Error) => err),
          batch.length,
        ),
      ),
    );
  }

  private counted(raised: number | Error, size: number): void {
    if (typeof raised === 'number') this.m.riskObserved.inc({ result: 'raised' }, raised);
    else {
      this.m.riskObserved.inc({ result: 'dropped' }, size);
      this.logger.debug(`risk observations dropped: ${raised.message}`);
    }
  }
}

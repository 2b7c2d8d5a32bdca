import { Logger } from '@nestjs/common';
import type { HeartbeatBlock, HeartbeatRiders } from '../../../redis/heartbeat-riders.js';
import type { QuotaMetrics } from '../quota.metrics.js';
import type { RiskStore } from '../store/risk/risk-store.js';
import { foldsInto } from '../store/risk/observation-runs.js';
import type { ObserveParams, RiskObservation } from '../core/risk.types.js';

/**
 * A batch is written as soon as this many entries are queued (bursts: about 1/64 call per update). An
 * entry is a run (observation-runs.ts): a signal repeated on one record, as a flood of forged requests
 * from one address makes it, is one entry however often it comes, so such a flood costs one call per
 * signal delay (20 ms), not one per 64 refusals.
 */
export const MAX_BATCH = 64;

/**
 * The queued risk observations of one instance, per store, and when they are
 * written: each must be written within its delay (`withinMs`). When the
 * remote store can ride (`batchArgs`) and the instance heartbeat comes within
 * that delay, it waits for the next beat (no call of its own); otherwise (a
 * signal's 20 ms, the memory store, no heartbeat) a timer writes the queue in
 * one script call per store, carrying whatever else is queued. MAX_BATCH
 * entries queued: written at once. Bound: MAX_BATCH entries per store (plus a
 * run's repeats, which come within one signal delay).
 */
export class RiskBatches {
  private readonly logger = new Logger('RiskRecorder');
  private readonly queue = new Map<RiskStore, RiskObservation[]>();
  /** Per store: its queue's entries (runs), and the last observation queued of each record. */
  private readonly runs = new Map<RiskStore, { n: number; last: Map<string, RiskObservation> }>();
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
        this.runs.delete(remote);
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
    let r = this.runs.get(store);
    if (!r) this.runs.set(store, (r = { n: 0, last: new Map() }));
    const prev = r.last.get(o.key);
    if (prev === undefined || !foldsInto(prev, o)) r.n += 1;
    r.last.set(o.key, o);
    if (r.n >= MAX_BATCH) {
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
    this.runs.clear();
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

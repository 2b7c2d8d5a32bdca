import type { InstanceCounts, StatsStore } from './stats-store.js';

/** Counters of a single instance (no Redis). */
export class MemoryStatsStore implements StatsStore {
  readonly kind = 'memory';
  private readonly byInstance = new Map<string, InstanceCounts>();

  constructor(private readonly clock: () => number = Date.now) {}

  publish(snapshot: InstanceCounts): Promise<void> {
    this.byInstance.set(snapshot.instance, structuredClone(snapshot));
    return Promise.resolve();
  }

  collect(maxAgeMs: number): Promise<InstanceCounts[]> {
    const since = this.clock() - maxAgeMs;
    for (const [id, s] of this.byInstance) if (s.at < since) this.byInstance.delete(id);
    return Promise.resolve([...this.byInstance.values()].map((s) => structuredClone(s)));
  }
}

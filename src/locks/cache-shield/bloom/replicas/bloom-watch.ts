import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { isUnavailable } from '../../../../redis/redis.errors.js';
import type { FilterSet } from './filter-set.js';

/**
 * The periodic checks of the filters: each product's revision (writes made
 * outside the app, e.g. `npm run index`, are not announced: the filter is
 * bypassed and rebuilt), the store pointers (a missed announcement or a
 * build made while Redis was down), and drift of the measured FP rate.
 */
export class BloomWatch {
  private readonly logger = new Logger('CacheShield');
  private readonly timers: NodeJS.Timeout[] = [];
  private polling = false;

  constructor(private readonly filters: FilterSet) {}

  start(): void {
    const { revisionPollMs, resyncMs } = this.filters.settings;
    if (revisionPollMs > 0) this.every(revisionPollMs, () => this.pollRevision());
    this.every(resyncMs, () => this.resync());
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
  }

  private every(ms: number, run: () => Promise<void>): void {
    const t = setInterval(() => {
      run().catch((err: unknown) => {
        if (!this.filters.closing && !isUnavailable(err))
          this.logger.warn(`bloom check failed: ${(err as Error).message}`);
      });
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  /** Marks a filter stale when the backend revision is ahead of what its build and announced adds account for. */
  async pollRevision(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (let confirm = 0; confirm < 2; confirm++) {
        const unexplained = await this.unexplained();
        if (unexplained.length === 0) return;
        // An add from another instance may be committed before its announcement is read here: look again once.
        if (confirm === 0) await sleep(250);
        else for (const name of unexplained) this.distrustAndRebuild(name);
      }
    } finally {
      this.polling = false;
    }
  }

  private async unexplained(): Promise<string[]> {
    const out: string[] = [];
    for (const group of this.filters.groups) {
      const revision = await group.revision();
      for (const { name } of group.filters) {
        const explained = this.filters.replica(name).explainedRevision();
        if (explained !== undefined && revision > explained && !this.filters.isBuilding(name))
          out.push(name);
      }
    }
    return out;
  }

  private distrustAndRebuild(name: string): void {
    this.filters.distrust(name, 'the backend was written outside this app');
    this.filters.background(this.filters.rebuild(name, 'writes outside the app'), name);
  }

  private async resync(): Promise<void> {
    for (const name of this.filters.replicas.keys()) await this.filters.ensureCurrent(name);
  }
}

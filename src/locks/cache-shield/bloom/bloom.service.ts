import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '../../../health/health-registry.service.js';
import { ShieldMetrics } from '../cache-shield.metrics.js';
import { bloomHealth } from './bloom-health.js';
import { beforeAddHook } from './replicas/before-add.js';
import { bootFilters } from './replicas/bloom-boot.js';
import { BloomFilters } from './replicas/bloom-filters.service.js';
import { BloomWatch } from './replicas/bloom-watch.js';

/** A Bloom verdict: `absent` (definitely), `maybe`, or `bypassed` (filter off, not built yet, or stale). */
export type Verdict = 'absent' | 'maybe' | 'bypassed';

/**
 * The filters as the shield uses them: lookups answered from memory, adds
 * made before items become findable (the hook every product with writes
 * installs), live false-positive accounting, and the boot (load or build
 * every registered filter, in the background: until a filter is usable its
 * lookups are "bypassed", never "absent").
 */
@Injectable()
export class BloomService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('CacheShield');
  private readonly watch: BloomWatch;
  private unsubscribe?: () => void;
  private readonly offAdd: (() => void)[] = [];
  /** Settles when every filter was loaded or built at boot (or failed to). */
  ready: Promise<void> = Promise.resolve();

  constructor(
    readonly filters: BloomFilters,
    private readonly metrics: ShieldMetrics,
    private readonly health: HealthRegistry,
  ) {
    this.watch = new BloomWatch(filters);
  }

  onModuleInit(): void {
    this.filters.init();
    for (const group of this.filters.groups)
      if (group.onBeforeAdd)
        this.offAdd.push(group.onBeforeAdd(beforeAddHook(this.filters, group)));
    this.health.register('cacheShield', async () => bloomHealth(this.filters.replicas), {
      optional: true,
    });
    this.ready = bootFilters(this.filters, this.logger, (off) => (this.unsubscribe = off));
    this.watch.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.filters.closing = true;
    this.watch.stop();
    for (const off of this.offAdd.splice(0)) off();
    this.unsubscribe?.();
    await this.ready;
  }

  /** `absent` when any key is definitely not in the filter. Counted per filter. */
  verdict(filter: string, keys: readonly string[]): { verdict: Verdict; version: number } {
    const replica = this.filters.replicas.get(filter);
    // A filter no product registered is bypassed like one not built yet.
    if (!replica?.usable) {
      this.metrics.lookups.inc({ filter, verdict: 'bypassed' });
      return { verdict: 'bypassed', version: 0 };
    }
    let verdict: Verdict = 'maybe';
    for (const k of keys) {
      if (!replica.has(k)) {
        verdict = 'absent';
        break;
      }
    }
    this.metrics.lookups.inc({ filter, verdict });
    return { verdict, version: replica.active!.info.version };
  }

  /**
   * Whether an "absent" verdict may be acted on. Adds made through this app
   * reach the filter before they become findable; writes made elsewhere
   * show up only in the product's revision. With a shared (Redis) store the
   * periodic revision check bounds that lag; without one, other instances'
   * writes are never announced, so the revision is read before every
   * "absent" (not shared between requests: a read that started before a
   * write committed must not vouch for a request that came after it).
   */
  async confirmAbsent(filter: string): Promise<boolean> {
    if (this.filters.store.shared) return true;
    const revision = await this.filters.revision(filter);
    const replica = this.filters.replica(filter);
    if (replica.usable && revision <= replica.explainedRevision()!) return true;
    if (replica.usable) {
      this.filters.distrust(filter, 'the backend was written outside this app');
      this.filters.background(this.filters.rebuild(filter, 'writes outside the app'), filter);
    }
    return false;
  }

  /** One key looked up alone turned out absent (true negative) or answered empty after "maybe" (false positive). */
  observe(filter: string, outcome: 'true-negative' | 'false-positive'): void {
    const meter = this.filters.meters.get(filter)!;
    if (outcome === 'true-negative') meter.trueNegative();
    else {
      meter.falsePositive();
      this.metrics.falsePositives.inc({ filter });
    }
    const rate = meter.rate;
    if (rate !== null) this.metrics.measuredFp.set({ filter }, rate);
    const target =
      this.filters.replica(filter).active?.info.targetP ?? this.filters.settings.targetFpRate;
    const { driftFactor, driftMinSamples } = this.filters.settings;
    if (meter.drifted(target, driftFactor, driftMinSamples, this.filters.clock.now())) {
      this.logger.warn(
        `bloom ${filter}: measured false-positive rate ${rate!.toFixed(5)} on ${meter.samples} absent keys is above ${driftFactor}× the target ${target}; consider POST /admin/bloom/rebuild`,
      );
    }
  }

  /** "Definitely absent" contradicted by the backend (shadow mode): a bug, never expected. */
  contradicted(filter: string): void {
    this.metrics.falseNegatives.inc({ filter });
    this.logger.error(
      `bloom ${filter}: a key reported definitely absent was found by the backend (false negative)`,
    );
  }

  /** Data generation: changes with every build and every add, so cached answers of older data are not served fresh. */
  generation(): string {
    return [...this.filters.replicas.values()]
      .map((r) => `${r.gen}${r.stale ? 's' : ''}`)
      .join(':');
  }
}

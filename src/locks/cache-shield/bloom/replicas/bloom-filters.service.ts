import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../../common/clock.js';
import type { FilterSource } from '../../cache-shield.filter-source.js';
import { ShieldMetrics } from '../../cache-shield.metrics.js';
import { CacheShieldRegistry, type RegisteredGroup } from '../../cache-shield.registry.js';
import { InjectShieldSettings } from '../../cache-shield.settings.js';
import type { CacheShieldSettings } from '../../cache-shield.types.js';
import { BLOOM_STORE, type BloomStore } from '../../store/bloom-store.js';
import { BloomRebuilds } from '../builds/bloom-rebuilds.js';
import { FilterBuilder } from '../builds/filter-builder.js';
import { FpMeter } from '../fp-meter.js';
import { distrustFilter, recordActivation, recordAdd } from './filter-bookkeeping.js';
import { FilterLoads } from './filter-loads.js';
import { FilterReplica } from './filter-replica.js';
import type { FilterSet } from './filter-set.js';

/**
 * This instance's copy of every registered filter, kept in step with the
 * store: loads the active builds, builds when there is none (one instance
 * per filter, under the store's build lock; the others load its bits),
 * applies announced adds and activations, reloads after a missed
 * announcement, and rebuilds when writes made outside the app are detected.
 */
@Injectable()
export class BloomFilters implements FilterSet {
  readonly logger = new Logger('CacheShield');
  readonly replicas = new Map<string, FilterReplica>();
  readonly sources = new Map<string, FilterSource>();
  readonly meters = new Map<string, FpMeter>();
  /** The registered products' filters, each group with its revision and before-add hook. */
  groups: readonly RegisteredGroup[] = [];
  private readonly groupOf = new Map<string, RegisteredGroup>();
  private readonly loads = new FilterLoads(this);
  private readonly builds: BloomRebuilds;
  closing = false;

  constructor(
    private readonly registry: CacheShieldRegistry,
    @Inject(BLOOM_STORE) readonly store: BloomStore,
    @InjectShieldSettings() readonly settings: CacheShieldSettings,
    readonly metrics: ShieldMetrics,
    @Inject(CLOCK) readonly clock: Clock,
  ) {
    this.builds = new BloomRebuilds(
      this,
      new FilterBuilder({
        store,
        settings,
        clock,
        revision: (name) => this.revision(name),
        closing: () => this.closing,
      }),
    );
  }

  /** One replica per registered filter; runs once at module init, when every product has registered. */
  init(): void {
    if (this.replicas.size > 0) return;
    this.groups = this.registry.filterGroups();
    for (const group of this.groups) {
      for (const src of group.filters) {
        this.groupOf.set(src.name, group);
        this.sources.set(src.name, src);
        this.replicas.set(src.name, new FilterReplica(src.name));
        this.meters.set(src.name, new FpMeter());
      }
    }
  }

  replica(name: string): FilterReplica {
    return this.replicas.get(name)!;
  }

  source(name: string): FilterSource {
    return this.sources.get(name)!;
  }

  revision(name: string): Promise<number> {
    return this.groupOf.get(name)!.revision();
  }

  isBuilding(name: string): boolean {
    return this.builds.running(name);
  }

  ensure(name: string): Promise<void> {
    return this.loads.ensure(name);
  }

  ensureCurrent(name: string): Promise<void> {
    return this.loads.ensureCurrent(name);
  }

  reload(name: string): Promise<'loaded' | 'none'> {
    return this.loads.reload(name);
  }

  /** Builds a new version (one build per filter at a time in this instance). */
  rebuild(
    name: string,
    reason: string,
    opts: { detached?: boolean; admin?: boolean } = {},
  ): Promise<void> {
    return this.builds.rebuild(name, reason, opts);
  }

  distrust(name: string, why: string): false {
    return distrustFilter(this, name, why);
  }

  afterAdd(name: string): void {
    recordAdd(this, name);
  }

  activated(name: string, reason?: string): void {
    recordActivation(this, name, reason);
  }

  background(p: Promise<unknown>, name: string): void {
    p.catch((err: unknown) => {
      if (!this.closing) this.logger.warn(`bloom ${name}: ${(err as Error).message}`);
    });
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { isUnavailable } from '../../../redis/redis.errors.js';
import { SEARCH_BACKEND, type SearchBackend } from '../../../search/search-backend.interface.js';
import type { CacheShieldSettings } from '../cache-shield.types.js';
import { InjectShieldSettings } from '../cache-shield.settings.js';
import { ShieldMetrics } from '../cache-shield.metrics.js';
import { BLOOM_STORE, type BloomEvent, type BloomStore } from '../store/bloom-store.js';
import { BloomRebuilds } from './bloom-rebuilds.js';
import { FilterBuilder } from './filter-builder.js';
import { FilterReplica } from './filter-replica.js';
import { type FilterSource, searchFilterSources } from './filter-sources.js';
import { FpMeter } from './fp-meter.js';

/**
 * Keeps this instance's copy of every filter in step with the store:
 * loads the active builds, builds when there is none (one instance per
 * filter, under the store's build lock; the others load its bits), applies
 * announced adds and activations, reloads after a missed announcement, and
 * rebuilds when writes made outside the app are detected.
 */
@Injectable()
export class BloomFilters {
  readonly logger = new Logger('CacheShield');
  readonly replicas = new Map<string, FilterReplica>();
  readonly sources = new Map<string, FilterSource>();
  readonly meters = new Map<string, FpMeter>();
  private readonly loading = new Map<string, Promise<'loaded' | 'none'>>();
  private readonly builds: BloomRebuilds;
  closing = false;

  constructor(
    @Inject(SEARCH_BACKEND) readonly backend: SearchBackend,
    @Inject(BLOOM_STORE) readonly store: BloomStore,
    @InjectShieldSettings() readonly settings: CacheShieldSettings,
    readonly metrics: ShieldMetrics,
  ) {
    for (const src of searchFilterSources(backend)) {
      this.sources.set(src.name, src);
      this.replicas.set(src.name, new FilterReplica(src.name));
      this.meters.set(src.name, new FpMeter());
    }
    this.builds = new BloomRebuilds(
      this,
      new FilterBuilder({
        store,
        settings,
        revision: () => this.revision(),
        closing: () => this.closing,
      }),
    );
  }

  replica(name: string): FilterReplica {
    return this.replicas.get(name)!;
  }

  isBuilding(name: string): boolean {
    return this.builds.running(name);
  }

  revision(): Promise<number> {
    return this.backend.count().then((c) => c.revision);
  }

  /** Makes a filter usable: load the active build, or build one (waiting for another instance that builds it). */
  async ensure(name: string): Promise<void> {
    try {
      if ((await this.reload(name)) === 'loaded' && (await this.trustLoaded(name))) return;
      await this.rebuild(name, this.replica(name).active ? 'stale build' : 'no build yet');
    } catch (err) {
      if (this.closing) return;
      if (!isUnavailable(err)) throw err;
      if (this.replica(name).active) return;
      this.logger.warn(
        `bloom ${name}: store unreachable (${(err as Error).message}); building in this instance only`,
      );
      await this.rebuild(name, 'store unreachable', { detached: true });
    }
  }

  /** Loads the active and previous builds from the store (one load per filter at a time). */
  reload(name: string): Promise<'loaded' | 'none'> {
    const running = this.loading.get(name);
    if (running) return running;
    const replica = this.replica(name);
    const p = (async (): Promise<'loaded' | 'none'> => {
      for (let attempt = 0; attempt < 3; attempt++) {
        replica.beginLoad();
        const loaded = await this.store.load(name).catch((err: unknown) => {
          replica.abortLoad();
          throw err;
        });
        const before = replica.active?.info.version;
        const outcome = replica.finishLoad(loaded);
        if (outcome === 'none') return 'none';
        if (before !== replica.active?.info.version) this.activated(name);
        if (outcome === 'loaded') return 'loaded';
      }
      return 'loaded';
    })().finally(() => this.loading.delete(name));
    this.loading.set(name, p);
    return p;
  }

  /** A loaded build is trusted when it accounts for the backend's revision and finds a sample of present keys. */
  private async trustLoaded(name: string): Promise<boolean> {
    const replica = this.replica(name);
    if ((await this.revision()) > replica.explainedRevision()!)
      return this.distrust(name, 'the backend changed since this build');
    let n = 0;
    for await (const key of this.sources.get(name)!.keys()) {
      if (!replica.has(key)) {
        this.logger.error(
          `bloom ${name} v${replica.active!.info.version}: a present key is reported absent`,
        );
        return this.distrust(name, 'a present key is missing');
      }
      if (++n >= 1_000) break;
    }
    return true;
  }

  /** Lookups bypass the filter (answer "maybe") until a new build is active. */
  distrust(name: string, why: string): false {
    const replica = this.replica(name);
    if (!replica.stale)
      this.logger.warn(`bloom ${name}: ${why}; lookups bypass the filter until it is rebuilt`);
    replica.stale = true;
    this.metrics.stale.set({ filter: name }, 1);
    return false;
  }

  /** Builds a new version (one build per filter at a time in this instance). */
  rebuild(
    name: string,
    reason: string,
    opts: { detached?: boolean; admin?: boolean } = {},
  ): Promise<void> {
    return this.builds.rebuild(name, reason, opts);
  }

  /** A store announcement. */
  onEvent(event: BloomEvent): void {
    if (this.closing) return;
    switch (event.type) {
      case 'resync':
        for (const name of this.replicas.keys()) this.background(this.ensureCurrent(name), name);
        return;
      case 'activated': {
        const replica = this.replicas.get(event.filter);
        if (
          !replica ||
          this.isBuilding(event.filter) ||
          replica.active?.info.version === event.version
        )
          return;
        if (replica.previous?.info.version === event.version && replica.seq === event.seq) {
          replica.swap();
          this.activated(event.filter, 'rollback');
        } else {
          this.background(this.reload(event.filter), event.filter);
        }
        return;
      }
      case 'added': {
        const replica = this.replicas.get(event.filter);
        if (!replica) return;
        if (replica.onAdded(event.seq, event.keys) === 'gap')
          this.background(this.reload(event.filter), event.filter);
        this.afterAdd(event.filter);
        return;
      }
    }
  }

  /** Compares the local copy with the store's pointer; reloads or rebuilds when they differ. */
  async ensureCurrent(name: string): Promise<void> {
    if (this.isBuilding(name) || this.loading.has(name)) return;
    const replica = this.replica(name);
    const pointer = await this.store.pointer(name);
    if (
      replica.detached ||
      pointer.active !== replica.active?.info.version ||
      pointer.seq > replica.seq
    )
      await this.ensure(name);
  }

  afterAdd(name: string): void {
    const replica = this.replica(name);
    this.metrics.fill.set({ filter: name }, replica.active?.bloom.fillRatio ?? 0);
    this.metrics.items.set({ filter: name }, (replica.active?.info.items ?? 0) + replica.addedKeys);
    const growth = this.settings.rebuildAfterGrowth;
    if (
      growth > 0 &&
      replica.active &&
      replica.addedKeys > growth * Math.max(replica.active.info.items, 1_000) &&
      !this.isBuilding(name)
    ) {
      this.background(
        this.rebuild(name, `grown by ${replica.addedKeys} keys since the build`),
        name,
      );
    }
  }

  /** Bookkeeping when another build became active here. */
  activated(name: string, reason?: string): void {
    const b = this.replica(name).active;
    if (!b) return;
    this.meters.get(name)!.reset();
    const i = b.info;
    this.metrics.version.set({ filter: name }, i.version);
    this.metrics.targetFp.set({ filter: name }, i.targetP);
    this.metrics.stale.set({ filter: name }, 0);
    this.afterAdd(name);
    const how = reason
      ? `built in ${i.buildMs} ms (${reason})`
      : `loaded (built ${i.builtAt} in ${i.buildMs} ms)`;
    this.logger.log(
      `bloom ${name} v${i.version}: ${i.items} items, ${i.bytes} bytes (m=${i.m}, k=${i.k}), target p=${i.targetP}, measured p=${i.measuredP.toFixed(5)} on ${i.measuredOn} absent keys, ${how}`,
    );
  }

  background(p: Promise<unknown>, name: string): void {
    p.catch((err: unknown) => {
      if (!this.closing) this.logger.warn(`bloom ${name}: ${(err as Error).message}`);
    });
  }
}

import type { Logger } from '@nestjs/common';
import type { Clock } from '../../../../common/clock.js';
import type { FilterSource } from '../../cache-shield.filter-source.js';
import type { ShieldMetrics } from '../../cache-shield.metrics.js';
import type { RegisteredGroup } from '../../cache-shield.registry.js';
import type { CacheShieldSettings } from '../../cache-shield.types.js';
import type { BloomStore } from '../../store/bloom-store.js';
import type { FpMeter } from '../fp-meter.js';
import type { FilterReplica } from './filter-replica.js';

/**
 * This instance's filters as their helpers (loads, builds, announcements,
 * adds, periodic checks) see them. Implemented by BloomFilters; declared
 * here so that no helper imports the service that owns it.
 */
export interface FilterSet {
  readonly logger: Logger;
  readonly store: BloomStore;
  readonly settings: CacheShieldSettings;
  readonly metrics: ShieldMetrics;
  readonly clock: Clock;
  /** The products' filters, grouped as registered. */
  readonly groups: readonly RegisteredGroup[];
  readonly replicas: ReadonlyMap<string, FilterReplica>;
  readonly meters: ReadonlyMap<string, FpMeter>;
  /** True once the app is shutting down. */
  readonly closing: boolean;
  replica(name: string): FilterReplica;
  source(name: string): FilterSource;
  /** The revision of the product the filter belongs to. */
  revision(name: string): Promise<number>;
  isBuilding(name: string): boolean;
  /** Makes a filter usable: load the active build, or build one. */
  ensure(name: string): Promise<void>;
  /** Compares the local copy with the store's pointer; reloads or rebuilds when they differ. */
  ensureCurrent(name: string): Promise<void>;
  /** Loads the active and previous builds from the store. */
  reload(name: string): Promise<'loaded' | 'none'>;
  rebuild(
    name: string,
    reason: string,
    opts?: { detached?: boolean; admin?: boolean },
  ): Promise<void>;
  /** Lookups bypass the filter until a new build is active. */
  distrust(name: string, why: string): false;
  /** Bookkeeping after keys were added. */
  afterAdd(name: string): void;
  /** Bookkeeping when another build became active here. */
  activated(name: string, reason?: string): void;
  /** Runs `p` without waiting; a failure is logged (unless closing). */
  background(p: Promise<unknown>, name: string): void;
}

import { Global, Injectable, Module } from '@nestjs/common';
import type { FilterGroup } from './cache-shield.filter-source.js';
import type { KeySource } from './cache-shield.key-source.js';

/** What one product plugs into the shield (see `CacheShieldModule.forFeature`). */
export interface CacheShieldFeature extends Partial<FilterGroup> {
  /** Key sources by name: the slice option `key` names one (e.g. `query`, `id`). */
  keySources?: Record<string, KeySource>;
}

/** A product's filters as registered: the revision defaults to one that never changes. */
export interface RegisteredGroup extends FilterGroup {
  revision(): Promise<number>;
}

/** Filter names are part of Redis keys: letters, digits, `-` and `_` only. */
const FILTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The key sources and filters the products registered, owned by the lock.
 * Products register while the app's providers are created; the filters are
 * set up once at module init, after which the registry is sealed.
 */
@Injectable()
export class CacheShieldRegistry {
  private readonly sources = new Map<string, KeySource>();
  private readonly groups: RegisteredGroup[] = [];
  private readonly filterNames = new Set<string>();
  private sealed = false;

  /** Adds a product's key sources and filters; a name taken twice is a programming error. */
  register(feature: CacheShieldFeature): void {
    if (this.sealed)
      throw new Error('cache shield: register features through CacheShieldModule.forFeature');
    for (const [name, source] of Object.entries(feature.keySources ?? {})) {
      if (name === '' || this.sources.has(name))
        throw new Error(`cache shield: key source "${name}" is empty or registered twice`);
      this.sources.set(name, source);
    }
    const filters = feature.filters ?? [];
    for (const f of filters) {
      if (!FILTER_NAME.test(f.name) || this.filterNames.has(f.name))
        throw new Error(`cache shield: filter "${f.name}" is not a valid name or registered twice`);
      this.filterNames.add(f.name);
    }
    if (filters.length > 0)
      this.groups.push({
        filters,
        revision: feature.revision ?? (async () => 0),
        onBeforeAdd: feature.onBeforeAdd,
      });
  }

  /** Registered key sources by name. */
  get keySources(): ReadonlyMap<string, KeySource> {
    return this.sources;
  }

  /** The registered filters, grouped by product; seals the registry. */
  filterGroups(): readonly RegisteredGroup[] {
    this.sealed = true;
    return this.groups;
  }
}

/** Makes the registry visible to every product's `forFeature` module (absent: the shield is not installed). */
@Global()
@Module({ providers: [CacheShieldRegistry], exports: [CacheShieldRegistry] })
export class CacheShieldRegistryModule {}

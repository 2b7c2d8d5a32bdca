import { isUnavailable } from '../../../../redis/redis.errors.js';
import type { BeforeAddHook, FilterGroup } from '../../cache-shield.filter-source.js';
import type { FilterSet } from './filter-set.js';

/**
 * The shield's before-add hook for one product's filters: the keys of a
 * write go into this instance's filters, then into the store (bits of the
 * active and previous builds, the add log) and out to every instance — all
 * before the product writes. Every filter of the product gets one add per
 * write (its revision counts one per write), empty when the write has no
 * keys for it. If the store cannot take them (Redis down) the hook rejects
 * and the write is refused, so no instance ever reports a findable key absent.
 */
export function beforeAddHook(filters: FilterSet, group: FilterGroup): BeforeAddHook {
  return async (keysByFilter) => {
    const jobs = group.filters.map((src) => {
      const keys = [...(keysByFilter[src.name] ?? [])];
      filters.replica(src.name).addLocal(keys);
      return announce(filters, src.name, keys);
    });
    await Promise.all(jobs);
  };
}

async function announce(filters: FilterSet, name: string, keys: string[]): Promise<void> {
  const { store, settings } = filters;
  const replica = filters.replica(name);
  for (let attempt = 0; attempt < 3; attempt++) {
    let res;
    try {
      res = await store.add(
        { filter: name, keys, targets: replica.targets(keys), at: filters.clock.now() },
        settings.bloomTtlDays * 86_400_000,
      );
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      throw new Error(
        `cache shield: new items cannot be announced to the other instances (${(err as Error).message}); the add is refused so that no instance reports them absent`,
      );
    }
    if (res.ok) {
      replica.acked = Math.max(replica.acked, res.seq);
      filters.afterAdd(name);
      return;
    }
    // Another build became active meanwhile: take it, then add to it.
    await filters.reload(name);
    replica.addLocal(keys);
  }
  throw new Error(`cache shield: ${name}: the active build kept changing during an add`);
}

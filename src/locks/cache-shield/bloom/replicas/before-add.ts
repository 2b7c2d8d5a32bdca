import { isUnavailable } from '../../../redis/redis.errors.js';
import type { BeforeAddListener } from '../../../search/search-backend.interface.js';
import type { BloomFilters } from './bloom-filters.service.js';

/**
 * The backend's before-add listener: the keys of a batch go into this
 * instance's filters, then into the store (bits of the active and previous
 * builds, the add log) and out to every instance — all before the backend
 * writes the batch. If the store cannot take them (Redis down) the add is
 * refused, so no instance ever reports a searchable item absent.
 */
export function announcer(filters: BloomFilters): BeforeAddListener {
  return async (batch) => {
    const jobs = [...filters.sources.values()].map((src) => {
      const keys = src.batchKeys(batch);
      filters.replica(src.name).addLocal(keys);
      return announce(filters, src.name, keys);
    });
    await Promise.all(jobs);
  };
}

async function announce(filters: BloomFilters, name: string, keys: string[]): Promise<void> {
  const { store, settings } = filters;
  const replica = filters.replica(name);
  for (let attempt = 0; attempt < 3; attempt++) {
    let res;
    try {
      res = await store.add(
        { filter: name, keys, targets: replica.targets(keys), at: Date.now() },
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

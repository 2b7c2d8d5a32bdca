import type { FilterReplica } from './replicas/filter-replica.js';

/** The shield's health check: each filter's active build; fails while one is not usable yet. */
export function bloomHealth(replicas: ReadonlyMap<string, FilterReplica>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const unusable: string[] = [];
  for (const [name, r] of replicas) {
    out[name] = r.active
      ? {
          version: r.active.info.version,
          items: r.active.info.items + r.addedKeys,
          stale: r.stale,
        }
      : { version: null };
    if (!r.usable) unusable.push(name);
  }
  if (unusable.length > 0)
    throw new Error(`bloom filters not usable yet (lookups bypass them): ${unusable.join(', ')}`);
  return out;
}

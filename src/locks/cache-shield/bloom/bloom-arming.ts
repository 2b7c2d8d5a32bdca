import { effectiveMode } from '../../../chain/lock-chain.service.js';
import type { Arming } from '../../../health/health-registry.service.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import type { KeySource } from '../cache-shield.key-source.js';
import type { CacheShieldSlice } from '../cache-shield.types.js';
import type { FilterReplica } from './replicas/filter-replica.js';

/**
 * Whether the shield can enforce on every policy that asks it to: each
 * filter that an enforcing slice's key source looks up is usable (loaded or
 * built). A slice with `serveWhileBuilding: true` does not hold readiness
 * back; it is listed as serving unarmed by choice while its filters build.
 * A filter switched off (`filter: off`) or a shadow slice needs nothing.
 */
export function bloomArming(
  policies: Record<string, RoutePolicy>,
  keySources: ReadonlyMap<string, KeySource>,
  replicas: ReadonlyMap<string, FilterReplica>,
  now: number,
): Arming {
  const pending: string[] = [];
  const byChoice: string[] = [];
  for (const [name, policy] of Object.entries(policies)) {
    const slice = policy.locks.cacheShield as CacheShieldSlice | undefined;
    if (!slice || effectiveMode(slice, now) !== 'enforce') continue;
    if (slice.filter === 'off' && (slice.filterOffUntil ?? Infinity) > now) continue;
    const filters = (slice.key && keySources.get(slice.key)?.filters) || [];
    const building = filters.filter((f) => replicas.get(f)?.usable === false);
    if (building.length === 0) continue;
    const what = `policy ${name}: bloom filter ${building.join(', ')} not built or loaded yet`;
    (slice.serveWhileBuilding === true ? byChoice : pending).push(what);
  }
  return { pending, byChoice };
}

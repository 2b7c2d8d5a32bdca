import type { FilterSet } from './filter-set.js';

/*
 * What BloomFilters records when a filter's copy changes: its metrics, a log line, and a rebuild once
 * it has grown too far past its build. Functions of the FilterSet, so the service only delegates.
 */

/** Lookups bypass the filter until a new build is active (logged once, when it turns stale). */
export function distrustFilter(f: FilterSet, name: string, why: string): false {
  const replica = f.replica(name);
  if (!replica.stale)
    f.logger.warn(`bloom ${name}: ${why}; lookups bypass the filter until it is rebuilt`);
  replica.stale = true;
  f.metrics.stale.set({ filter: name }, 1);
  return false;
}

/** Fill and item gauges after keys were added; a rebuild in the background past `rebuildAfterGrowth`. */
export function recordAdd(f: FilterSet, name: string): void {
  const replica = f.replica(name);
  f.metrics.fill.set({ filter: name }, replica.active?.bloom.fillRatio ?? 0);
  f.metrics.items.set({ filter: name }, (replica.active?.info.items ?? 0) + replica.addedKeys);
  const growth = f.settings.rebuildAfterGrowth;
  if (
    growth > 0 &&
    replica.active &&
    replica.addedKeys > growth * Math.max(replica.active.info.items, 1_000) &&
    !f.isBuilding(name)
  ) {
    f.background(f.rebuild(name, `grown by ${replica.addedKeys} keys since the build`), name);
  }
}

/** A new active build here: reset its false-positive meter, set its gauges, log what it is. */
export function recordActivation(f: FilterSet, name: string, reason?: string): void {
  const b = f.replica(name).active;
  if (!b) return;
  f.meters.get(name)!.reset();
  const i = b.info;
  f.metrics.version.set({ filter: name }, i.version);
  f.metrics.targetFp.set({ filter: name }, i.targetP);
  f.metrics.stale.set({ filter: name }, 0);
  f.afterAdd(name);
  const how = reason
    ? `built in ${i.buildMs} ms (${reason})`
    : `loaded (built ${i.builtAt} in ${i.buildMs} ms)`;
  f.logger.log(
    `bloom ${name} v${i.version}: ${i.items} items, ${i.bytes} bytes (m=${i.m}, k=${i.k}), target p=${i.targetP}, measured p=${i.measuredP.toFixed(5)} on ${i.measuredOn} absent keys, ${how}`,
  );
}

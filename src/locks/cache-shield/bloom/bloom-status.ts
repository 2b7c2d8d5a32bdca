import type { BloomBuildInfo as AdminBuildInfo, BloomFilterStatus } from '../cache-shield.admin.js';
import type { HeldBuild } from './replicas/filter-replica.js';
import type { FilterSet } from './replicas/filter-set.js';

/** A build as the admin API shows it: the port's fields plus sizing, fill and live FP rate. */
export interface BuildView extends AdminBuildInfo {
  buildMs: number;
  m: number;
  k: number;
  hash: string;
  bytes: number;
  measuredOn: number;
}

/** Every filter of this instance as the admin API shows it: its active and previous builds. */
export function filterStatus(filters: FilterSet): BloomFilterStatus[] {
  return [...filters.replicas.values()].map((r) => ({
    name: r.name,
    active: r.active
      ? {
          ...view(r.active),
          fillRatio: round(r.active.bloom.fillRatio),
          addedKeys: r.addedKeys,
          seq: r.seq,
          stale: r.stale,
          liveFp: filters.meters.get(r.name)!.rate,
        }
      : null,
    previous: r.previous ? view(r.previous) : null,
    building: filters.isBuilding(r.name),
  }));
}

function view(b: HeldBuild): BuildView {
  const i = b.info;
  return {
    version: i.version,
    items: i.items,
    targetFp: i.targetP,
    measuredFp: i.measuredP,
    source: i.source,
    builtAt: i.builtAt,
    buildMs: i.buildMs,
    m: i.m,
    k: i.k,
    hash: i.hash,
    bytes: i.bytes,
    measuredOn: i.measuredOn,
  };
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

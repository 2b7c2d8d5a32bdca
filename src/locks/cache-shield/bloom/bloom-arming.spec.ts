import { describe, expect, it } from 'vitest';
import type { RoutePolicy } from '../../../config/policy.types.js';
import type { KeySource } from '../cache-shield.key-source.js';
import { bloomArming } from './bloom-arming.js';
import { FilterReplica } from './replicas/filter-replica.js';
import type { HeldBuild } from './replicas/filter-replica.js';

const source = (filters?: string[]) => ({ filters }) as unknown as KeySource;
const SOURCES = new Map<string, KeySource>([
  ['query', source(['terms'])],
  ['id', source(['ids'])],
  ['models', source()],
]);

function replicas(built: string[]): Map<string, FilterReplica> {
  const out = new Map<string, FilterReplica>();
  for (const name of ['terms', 'ids']) {
    const r = new FilterReplica(name);
    if (built.includes(name)) r.active = {} as HeldBuild;
    out.set(name, r);
  }
  return out;
}

const policy = (slice: Record<string, unknown>): RoutePolicy => ({
  locks: { cacheShield: { mode: 'enforce', ...slice } as RoutePolicy['locks'][string] },
});

describe(bloomArming.name, () => {
  const NOW = 1_000_000;

  it('should list every enforcing policy whose filter is not usable yet', () => {
    const a = bloomArming(
      { search: policy({ key: 'query' }), item: policy({ key: 'id' }) },
      SOURCES,
      replicas(['ids']),
      NOW,
    );
    expect(a).toEqual({
      pending: ['policy search: bloom filter terms not built or loaded yet'],
      byChoice: [],
    });
  });

  it('should need nothing for shadow, off, a filter switched off, or a source without filters', () => {
    const a = bloomArming(
      {
        shadow: policy({ key: 'query', mode: 'shadow' }),
        off: policy({ key: 'query', mode: 'off' }),
        killed: policy({ key: 'query', filter: 'off' }),
        models: policy({ key: 'models' }),
        none: { locks: {} },
      },
      SOURCES,
      replicas([]),
      NOW,
    );
    expect(a).toEqual({ pending: [], byChoice: [] });
  });

  it('should wait again once a time-boxed kill switch has expired, and follow an override', () => {
    const a = bloomArming(
      {
        expired: policy({ key: 'query', filter: 'off', filterOffUntil: NOW - 1 }),
        overridden: policy({
          key: 'id',
          mode: 'shadow',
          override: { mode: 'enforce', until: NOW + 1 },
        }),
      },
      SOURCES,
      replicas([]),
      NOW,
    );
    expect(a.pending).toEqual([
      'policy expired: bloom filter terms not built or loaded yet',
      'policy overridden: bloom filter ids not built or loaded yet',
    ]);
  });

  it('should list serveWhileBuilding policies as serving unarmed by choice, and a stale filter as not usable', () => {
    const r = replicas(['terms']);
    r.get('terms')!.stale = true;
    const a = bloomArming(
      {
        search: policy({ key: 'query', serveWhileBuilding: true }),
        strict: policy({ key: 'query' }),
      },
      SOURCES,
      r,
      NOW,
    );
    expect(a).toEqual({
      pending: ['policy strict: bloom filter terms not built or loaded yet'],
      byChoice: ['policy search: bloom filter terms not built or loaded yet'],
    });
  });
});

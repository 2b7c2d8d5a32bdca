import { describe, expect, it } from 'vitest';
import type { BloomBuildInfo } from '../filter/bloom-build.js';
import { BloomFilter } from '../filter/bloom-filter.js';
import type { LoadedFilter } from '../../store/bloom-store.js';
import { FilterReplica, type HeldBuild } from './filter-replica.js';

function held(version: number, keys: string[], over: Partial<BloomBuildInfo> = {}): HeldBuild {
  const bloom = BloomFilter.sized(1_000, 0.001);
  for (const k of keys) bloom.add(k);
  const info = {
    filter: 'f',
    version,
    items: keys.length,
    targetP: 0.001,
    measuredP: 0,
    measuredOn: 0,
    source: 't',
    builtAt: '',
    buildMs: 0,
    m: bloom.m,
    k: bloom.k,
    hash: bloom.hash,
    bytes: bloom.bits.length,
    revision: 10,
    seq: 4,
    ...over,
  };
  return { bloom, info };
}

function loaded(b: HeldBuild, seq: number, previous?: HeldBuild): LoadedFilter {
  const stored = (h: HeldBuild) => ({ info: h.info, bytes: h.bloom.toBytes() });
  return {
    pointer: { active: b.info.version, previous: previous?.info.version, seq },
    active: stored(b),
    previous: previous && stored(previous),
  };
}

describe(FilterReplica.name, () => {
  it('should say "maybe" for everything and be unusable before a build', () => {
    const r = new FilterReplica('f');
    expect(r.usable).toBe(false);
    expect(r.has('anything')).toBe(true);
    expect(r.explainedRevision()).toBeUndefined();
  });

  it('should apply announcements in order, skip old ones and report a gap', () => {
    const r = new FilterReplica('f');
    r.install(held(1, ['a']), undefined, 4);
    expect(r.onAdded(5, ['b'])).toBe('applied');
    expect(r.onAdded(5, ['b'])).toBe('old');
    expect(r.onAdded(7, ['d'])).toBe('gap');
    expect(r.seq).toBe(5);
    // Keys of a gap are applied anyway: more bits never hide a key.
    expect(['a', 'b', 'd'].every((k) => r.has(k))).toBe(true);
    expect(r.addedKeys).toBe(1);
  });

  it('should account for the backend revision with the build revision plus one per add since', () => {
    const r = new FilterReplica('f');
    r.install(held(1, ['a'], { revision: 10, seq: 4 }), undefined, 4);
    expect(r.explainedRevision()).toBe(10);
    r.onAdded(5, ['b']);
    expect(r.explainedRevision()).toBe(11);
    r.acked = 7;
    expect(r.explainedRevision()).toBe(13);
  });

  it('should apply again the announcements that arrived during a load', () => {
    const r = new FilterReplica('f');
    r.install(held(1, ['a']), undefined, 4);
    r.beginLoad();
    r.onAdded(5, ['b']);
    r.onAdded(6, ['c']);
    expect(r.finishLoad(loaded(held(2, ['a', 'b']), 5))).toBe('loaded');
    expect(r.active?.info.version).toBe(2);
    expect(r.seq).toBe(6);
    expect(r.has('c')).toBe(true);
  });

  it('should report a gap left after a load and "none" when the store has no build', () => {
    const r = new FilterReplica('f');
    r.beginLoad();
    r.onAdded(9, ['z']);
    expect(r.finishLoad(loaded(held(2, ['a']), 5))).toBe('gap');
    r.beginLoad();
    expect(r.finishLoad({ pointer: { seq: 0 } })).toBe('none');
    expect(r.active?.info.version).toBe(2);
  });

  it('should treat a build of another hash or format as no build', () => {
    const r = new FilterReplica('f');
    const bad = loaded(held(1, ['a']), 0);
    bad.active!.bytes.writeUInt8(7, 5);
    r.beginLoad();
    expect(r.finishLoad(bad)).toBe('none');
  });

  it('should add to active and previous builds and swap them on rollback', () => {
    const r = new FilterReplica('f');
    r.install(held(2, ['new']), held(1, ['old']), 0);
    r.addLocal(['both']);
    expect(r.targets(['x']).map((t) => [t.version, t.positions.length])).toEqual([
      [2, r.active!.info.k],
      [1, r.previous!.info.k],
    ]);
    r.swap();
    expect(r.active?.info.version).toBe(1);
    expect(r.has('both')).toBe(true);
    expect(r.gen).toBe('1.0');
  });
});

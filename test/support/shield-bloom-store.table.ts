/**
 * THE table of the cache shield's Bloom stores: every case runs against the
 * memory store (unit ring) and the Redis store (integration ring).
 */
import { expect, it } from 'vitest';
import type { BloomBuildInfo } from '../../src/locks/cache-shield/bloom/filter/bloom-build.js';
import { BloomFilter } from '../../src/locks/cache-shield/bloom/filter/bloom-filter.js';
import type {
  BloomEvent,
  BloomStore,
  StoredBuild,
} from '../../src/locks/cache-shield/store/bloom-store.js';

export interface BloomStoreHarness {
  store: BloomStore;
  /** A filter name unique to this case. */
  filter: string;
}

const TTL = 60_000;

function build(
  filter: string,
  version: number,
  keys: string[],
  seq = 0,
): { stored: StoredBuild; bloom: BloomFilter } {
  const bloom = BloomFilter.sized(100, 0.01);
  for (const k of keys) bloom.add(k);
  const info: BloomBuildInfo = {
    filter,
    version,
    items: keys.length,
    targetP: 0.01,
    measuredP: 0.009,
    measuredOn: 1000,
    source: 'table',
    builtAt: new Date(0).toISOString(),
    buildMs: 1,
    m: bloom.m,
    k: bloom.k,
    hash: bloom.hash,
    bytes: bloom.bits.length,
    revision: 0,
    seq,
  };
  return { stored: { info, bytes: bloom.toBytes() }, bloom };
}

async function until<T>(get: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = get();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not reached in 2 s');
}

export function runBloomStoreTable(make: () => Promise<BloomStoreHarness>): void {
  it('should start with no build and seq 0', async () => {
    const { store, filter } = await make();
    expect(await store.pointer(filter)).toEqual({ seq: 0 });
    expect(await store.load(filter)).toEqual({
      pointer: { seq: 0 },
      active: undefined,
      previous: undefined,
    });
  });

  it('should hand out increasing version numbers', async () => {
    const { store, filter } = await make();
    const a = await store.nextVersion(filter);
    const b = await store.nextVersion(filter);
    expect(b).toBeGreaterThan(a);
  });

  it('should give the build lock to one owner at a time and let only that owner release it', async () => {
    const { store, filter } = await make();
    expect(await store.claimBuild(filter, 'a', TTL)).toBe(true);
    expect(await store.claimBuild(filter, 'b', TTL)).toBe(false);
    await store.releaseBuild(filter, 'b');
    expect(await store.claimBuild(filter, 'b', TTL)).toBe(false);
    await store.releaseBuild(filter, 'a');
    expect(await store.claimBuild(filter, 'b', TTL)).toBe(true);
  });

  it('should let a build lock lapse after its TTL', async () => {
    const { store, filter } = await make();
    expect(await store.claimBuild(filter, 'a', 30)).toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    expect(await store.claimBuild(filter, 'b', TTL)).toBe(true);
  });

  it('should activate a build, announce it, and load the same bits and info', async () => {
    const { store, filter } = await make();
    const events: BloomEvent[] = [];
    const off = await store.subscribe((e) => events.push(e));
    const { stored } = build(filter, 1, ['paris', 'tokyo']);
    expect(await store.activate(stored, undefined, 0, TTL)).toEqual({
      ok: true,
      displaced: undefined,
    });
    const loaded = await store.load(filter);
    expect(loaded.pointer).toEqual({ active: 1, seq: 0 });
    expect(loaded.active?.info).toEqual(stored.info);
    expect(loaded.active?.bytes.equals(stored.bytes)).toBe(true);
    expect(await until(() => events.find((e) => e.type === 'activated'))).toEqual({
      type: 'activated',
      filter,
      version: 1,
      seq: 0,
    });
    off();
  });

  it('should refuse an activation when the active build or seq moved on', async () => {
    const { store, filter } = await make();
    await store.activate(build(filter, 1, ['a']).stored, undefined, 0, TTL);
    expect(await store.activate(build(filter, 2, ['a']).stored, undefined, 0, TTL)).toEqual({
      ok: false,
      pointer: { active: 1, seq: 0 },
    });
    expect(await store.activate(build(filter, 2, ['a']).stored, 1, 5, TTL)).toEqual({
      ok: false,
      pointer: { active: 1, seq: 0 },
    });
    expect((await store.pointer(filter)).active).toBe(1);
  });

  it('should keep the previous build, displace the one before it, and drop it on request', async () => {
    const { store, filter } = await make();
    await store.activate(build(filter, 1, ['a']).stored, undefined, 0, TTL);
    expect(await store.activate(build(filter, 2, ['b']).stored, 1, 0, TTL)).toEqual({
      ok: true,
      displaced: undefined,
    });
    expect(await store.activate(build(filter, 3, ['c']).stored, 2, 0, TTL)).toEqual({
      ok: true,
      displaced: 1,
    });
    await store.drop(filter, 1);
    await store.drop(filter, 2);
    const loaded = await store.load(filter);
    expect(loaded.pointer).toEqual({ active: 3, previous: 2, seq: 0 });
    expect(loaded.previous?.info.version).toBe(2);
  });

  it('should set the bits of an add in the active and previous builds, log it and announce it', async () => {
    const { store, filter } = await make();
    const one = build(filter, 1, ['a']);
    const two = build(filter, 2, ['b']);
    await store.activate(one.stored, undefined, 0, TTL);
    await store.activate(two.stored, 1, 0, TTL);
    const events: BloomEvent[] = [];
    const off = await store.subscribe((e) => events.push(e));
    const keys = ['new town', 'ünïcode'];
    const targets = [two, one].map(({ bloom, stored }) => ({
      version: stored.info.version,
      positions: keys.flatMap((k) => bloom.positions(k)),
    }));
    expect(await store.add({ filter, keys, targets, at: 1_000 }, TTL)).toEqual({
      ok: true,
      seq: 1,
    });
    const loaded = await store.load(filter);
    expect(loaded.pointer.seq).toBe(1);
    for (const b of [loaded.active!, loaded.previous!]) {
      const f = BloomFilter.fromBytes(b.bytes);
      expect(keys.every((k) => f.has(k))).toBe(true);
    }
    expect(BloomFilter.fromBytes(loaded.active!.bytes).has('b')).toBe(true);
    expect(await store.addLog(filter)).toEqual([{ seq: 1, at: 1_000, keys }]);
    expect(await until(() => events.find((e) => e.type === 'added'))).toEqual({
      type: 'added',
      filter,
      seq: 1,
      keys,
    });
    off();
  });

  it('should refuse an add aimed at builds that are no longer active, writing nothing', async () => {
    const { store, filter } = await make();
    const one = build(filter, 1, ['a']);
    await store.activate(one.stored, undefined, 0, TTL);
    await store.activate(build(filter, 2, ['b']).stored, 1, 0, TTL);
    const res = await store.add(
      {
        filter,
        keys: ['x'],
        targets: [{ version: 1, positions: one.bloom.positions('x') }],
        at: 5,
      },
      TTL,
    );
    expect(res).toEqual({ ok: false, pointer: { active: 2, previous: 1, seq: 0 } });
    expect(await store.addLog(filter)).toEqual([]);
  });

  it('should log an add made before any build, for the first build to replay', async () => {
    const { store, filter } = await make();
    expect(await store.add({ filter, keys: ['early'], targets: [], at: 10 }, TTL)).toEqual({
      ok: true,
      seq: 1,
    });
    expect(await store.add({ filter, keys: ['later'], targets: [], at: 20 }, TTL)).toEqual({
      ok: true,
      seq: 2,
    });
    expect((await store.addLog(filter)).map((e) => [e.seq, e.at, e.keys])).toEqual([
      [1, 10, ['early']],
      [2, 20, ['later']],
    ]);
    expect(await store.pointer(filter)).toEqual({ seq: 2 });
  });

  it('should roll back by swapping active and previous, and refuse when they moved on', async () => {
    const { store, filter } = await make();
    await store.activate(build(filter, 1, ['a']).stored, undefined, 0, TTL);
    await store.activate(build(filter, 2, ['b']).stored, 1, 0, TTL);
    expect(await store.rollback(filter, { active: 1, previous: 2 }, TTL)).toEqual({
      ok: false,
      pointer: { active: 2, previous: 1, seq: 0 },
    });
    expect(await store.rollback(filter, { active: 2, previous: 1 }, TTL)).toEqual({ ok: true });
    expect(await store.pointer(filter)).toEqual({ active: 1, previous: 2, seq: 0 });
    expect((await store.load(filter)).active?.info.version).toBe(1);
  });
}

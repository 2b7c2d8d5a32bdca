import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VersionedSync, type VersionedSource } from './versioned-sync.js';

function source(): VersionedSource & { v: number; fail?: string } {
  const s = {
    v: 0,
    fail: undefined as string | undefined,
    version: () => (s.fail ? Promise.reject(new Error(s.fail)) : Promise.resolve(s.v)),
    watch: () => Promise.resolve(() => undefined),
  };
  return s;
}

describe(VersionedSync.name, () => {
  afterEach(() => vi.restoreAllMocks());

  it('should reload only when the version moved, and call unchanged otherwise', async () => {
    const src = source();
    const reloads: number[] = [];
    let unchanged = 0;
    const sync = new VersionedSync({
      name: 'things',
      source: src,
      intervalMs: 60_000,
      initialVersion: -1,
      reload: (v) => Promise.resolve(void reloads.push(v)),
      unchanged: () => void unchanged++,
    });
    expect(sync.loaded).toBe(false);
    await sync.pull();
    await sync.pull();
    src.v = 3;
    await sync.pull();
    await sync.pull();
    expect(reloads).toEqual([0, 3]);
    expect(unchanged).toBe(2);
    expect(sync.loaded).toBe(true);
  });

  it('should retry a failed reload on the next pull and log a repeated error once', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const src = source();
    src.v = 1;
    let broken = true;
    const reloads: number[] = [];
    const sync = new VersionedSync({
      name: 'things',
      source: src,
      intervalMs: 60_000,
      initialVersion: 0,
      reload: (v) =>
        broken ? Promise.reject(new Error('boom')) : Promise.resolve(void reloads.push(v)),
    });
    await sync.pull();
    await sync.pull();
    expect(sync.loaded).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe('things sync failed: boom');
    broken = false;
    await sync.pull();
    expect(reloads).toEqual([1]);
    expect(sync.loaded).toBe(true);
  });

  it('should run pulls and local changes one at a time, in call order', async () => {
    const src = source();
    const order: string[] = [];
    let release!: () => void;
    const sync = new VersionedSync({
      name: 'things',
      source: src,
      intervalMs: 60_000,
      initialVersion: -1,
      reload: () => new Promise<void>((r) => (release = () => r(void order.push('reload')))),
    });
    const pulled = sync.pull();
    const change = sync.serial(() => Promise.resolve(void order.push('change')));
    await vi.waitFor(() => expect(release).toBeTypeOf('function'));
    release();
    await Promise.all([pulled, change]);
    expect(order).toEqual(['reload', 'change']);
  });

  it('should let the owner say which versions it already runs (local changes, refused versions)', async () => {
    const src = source();
    const reloads: number[] = [];
    let running = 0;
    const sync = new VersionedSync({
      name: 'things',
      source: src,
      intervalMs: 60_000,
      initialVersion: 0,
      reload: (v) => Promise.resolve(void reloads.push(v)),
      isApplied: (v) => v === running,
    });
    src.v = 2;
    running = 2; // the owner made version 2 itself
    expect(await sync.pull()).toBe(true);
    src.v = 3;
    await sync.pull();
    await sync.pull(); // the owner did not take 3 up (refused it, say): asked again
    expect(reloads).toEqual([3, 3]);
    expect(sync.loaded).toBe(true);
  });

  it('should coalesce pulls asked while one waits to start, and resolve false when the store fails', async () => {
    const src = source();
    let reads = 0;
    const version = src.version;
    src.version = () => (reads++, version());
    let release!: () => void;
    const sync = new VersionedSync({
      name: 'things',
      source: src,
      intervalMs: 60_000,
      initialVersion: -1,
      reload: () => Promise.resolve(),
    });
    const busy = sync.serial(() => new Promise<void>((r) => (release = r)));
    const asked = [sync.pull(), sync.pull(), sync.pull()];
    await vi.waitFor(() => expect(release).toBeTypeOf('function'));
    release();
    await busy;
    expect(await Promise.all(asked)).toEqual([true, true, true]);
    expect(reads).toBe(1);
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    src.fail = 'down';
    expect(await sync.pull()).toBe(false);
  });
});

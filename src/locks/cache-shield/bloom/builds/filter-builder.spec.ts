import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../../common/clock.js';
import type { FilterSource } from '../../cache-shield.filter-source.js';
import { DEFAULT_SETTINGS } from '../../cache-shield.types.js';
import { MemoryBloomStore } from '../../store/memory-bloom.store.js';
import { FilterReplica } from '../replicas/filter-replica.js';
import { FilterBuilder } from './filter-builder.js';

function source(
  keys: string[],
  pause?: { after: number; gate: Promise<void>; reached: () => void },
): FilterSource {
  return {
    name: 'search-terms',
    source: 'test:keys',
    async *keys() {
      for (let i = 0; i < keys.length; i++) {
        if (pause && i === pause.after) {
          pause.reached();
          await pause.gate;
        }
        yield keys[i]!;
      }
    },
  };
}

const settings = { ...DEFAULT_SETTINGS, targetFpRate: 0.01, measureSample: 2_000 };
const keys = Array.from({ length: 3_000 }, (_, i) => `term${i}`);

describe(FilterBuilder.name, () => {
  it('should build, validate, measure and activate a first version', async () => {
    const store = new MemoryBloomStore(systemClock);
    const builder = new FilterBuilder({
      store,
      settings,
      revision: async () => 42,
      clock: systemClock,
      closing: () => false,
    });
    const out = await builder.build(source(keys), new FilterReplica('search-terms'), false);
    expect(out.held.info).toMatchObject({
      filter: 'search-terms',
      version: 1,
      items: 3_000,
      targetP: 0.01,
      source: 'test:keys',
      revision: 42,
      seq: 0,
      measuredOn: 2_000,
    });
    // 2,000 random absent keys at p = 0.01: about 20 false positives; these bounds are ≥ 3.5 σ away.
    expect(out.held.info.measuredP).toBeGreaterThan(0.002);
    expect(out.held.info.measuredP).toBeLessThan(0.025);
    expect(keys.every((k) => out.held.bloom.has(k))).toBe(true);
    expect(await store.pointer('search-terms')).toEqual({ active: 1, seq: 0 });
    expect(out.replaced).toBeUndefined();
  });

  it('should include a key added while the build was reading its source', async () => {
    const store = new MemoryBloomStore(systemClock);
    let reached!: () => void;
    let open!: () => void;
    const atPause = new Promise<void>((r) => (reached = r));
    const gate = new Promise<void>((r) => (open = r));
    const builder = new FilterBuilder({
      store,
      settings,
      revision: async () => 1,
      clock: systemClock,
      closing: () => false,
    });
    const building = builder.build(
      source(keys, { after: 1_500, gate, reached }),
      new FilterReplica('search-terms'),
      false,
    );
    await atPause;
    expect(
      await store.add(
        { filter: 'search-terms', keys: ['latecomer'], targets: [], at: Date.now() },
        60_000,
      ),
    ).toEqual({ ok: true, seq: 1 });
    open();
    const out = await building;
    expect(out.held.bloom.has('latecomer')).toBe(true);
    expect(out.held.info.items).toBe(3_001);
    expect(out.seq).toBe(1);
    expect(await store.pointer('search-terms')).toEqual({ active: 1, seq: 1 });
  });

  it('should replay again when an add slips in between reading the log and activating', async () => {
    const store = new MemoryBloomStore(systemClock);
    let injected = false;
    const racy = Object.create(store) as MemoryBloomStore;
    racy.addLog = async (filter: string) => {
      const log = await store.addLog(filter);
      if (!injected) {
        injected = true;
        await store.add({ filter, keys: ['slipped'], targets: [], at: Date.now() }, 60_000);
      }
      return log;
    };
    const builder = new FilterBuilder({
      store: racy,
      settings,
      revision: async () => 1,
      clock: systemClock,
      closing: () => false,
    });
    const out = await builder.build(
      source(keys.slice(0, 100)),
      new FilterReplica('search-terms'),
      false,
    );
    expect(out.held.bloom.has('slipped')).toBe(true);
    expect(out.seq).toBe(1);
  });

  it('should build only in memory while detached, numbering after the build it replaces', async () => {
    const store = new MemoryBloomStore(systemClock);
    const replica = new FilterReplica('search-terms');
    const builder = new FilterBuilder({
      store,
      settings,
      revision: async () => 3,
      clock: systemClock,
      closing: () => false,
    });
    const first = await builder.build(source(keys.slice(0, 10)), replica, true);
    replica.install(first.held, undefined, 0);
    const second = await builder.build(source(keys.slice(0, 20)), replica, true);
    expect([first.held.info.version, second.held.info.version]).toEqual([1, 2]);
    expect(await store.pointer('search-terms')).toEqual({ seq: 0 });
  });

  it('should stop when the app shuts down', async () => {
    const builder = new FilterBuilder({
      store: new MemoryBloomStore(systemClock),
      settings,
      revision: async () => 1,
      clock: systemClock,
      closing: () => true,
    });
    await expect(
      builder.build(
        source(Array.from({ length: 20_000 }, (_, i) => `k${i}`)),
        new FilterReplica('search-terms'),
        false,
      ),
    ).rejects.toThrow('shutting down');
  });
});

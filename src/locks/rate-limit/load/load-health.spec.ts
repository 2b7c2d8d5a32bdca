import { describe, expect, it } from 'vitest';
import type { LockChain } from '../../../chain/lock-chain.service.js';
import type { Clock } from '../../../common/clock.js';
import type { HealthSample, LoadSettings, LoadState } from '../core/load.types.js';
import { healthLevelOf } from '../core/load.types.js';
import type { QuotaMetrics } from '../quota.metrics.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { defaultLoadSettings, validateLoad } from '../settings/load.settings.js';
import type { StoreLanes } from '../store/lanes/store-lanes.js';
import type { GlobalBucket, LoadStore } from '../store/load/load-store.js';
import type { MemoryLoadStore } from '../store/load/memory-load.store.js';
import { NodeHealthSource } from './health-source.js';
import { LoadMonitor } from './load-monitor.service.js';
import { HeartbeatRiders } from '../../../redis/heartbeat-riders.js';

const HEALTH = {
  ...defaultLoadSettings(),
  holdMs: 1_000,
  eventLoopDelay: { softMs: 50, hardMs: 200 },
  admittedP99: { softMs: 500, hardMs: 2_000 },
};

/** A monitor over a store that answers `shared` and a health source that answers `sample`. */
function monitor(load: LoadSettings = HEALTH) {
  const t = { now: 1_000, sample: {} as HealthSample, shown: [] as (HealthSample | undefined)[] };
  const shared = {
    value: { level: 'normal', fill: 0, reason: 'pressure' } as Omit<LoadState, 'at'>,
  };
  const computed: { key: string; buckets: readonly GlobalBucket[] }[] = [];
  const store: LoadStore = {
    compute: (key, buckets) => (computed.push({ key, buckets }), Promise.resolve(shared.value)),
  };
  const mon = new LoadMonitor(
    { current: () => ({ policies: {} }) } as unknown as LockChain,
    { current: () => undefined, tag: '{t}' } as unknown as StoreLanes,
    store,
    store as MemoryLoadStore,
    {
      show: (_l: unknown, _f: unknown, _a: unknown, h?: HealthSample) => t.shown.push(h),
    } as unknown as QuotaMetrics,
    { load } as RateLimitSettings,
    { now: () => t.now } as Clock,
    { read: () => t.sample },
    new HeartbeatRiders(),
  );
  return { mon, t, shared, computed };
}

describe('load level from this instance health', () => {
  it.each([
    [{}, 'normal', undefined],
    [{ eventLoopMs: 49, admittedMs: 499 }, 'normal', undefined],
    [{ eventLoopMs: 50 }, 'soft', 'event_loop'],
    [{ eventLoopMs: 250, admittedMs: 600 }, 'hard', 'event_loop'],
    [{ eventLoopMs: 60, admittedMs: 2_500 }, 'hard', 'latency'],
    [{ eventLoopMs: 10, admittedMs: 700 }, 'soft', 'latency'],
  ] as const)('should put %o at %s (reason %s): the max of the inputs', (h, level, reason) => {
    expect(healthLevelOf(h, HEALTH)).toEqual(reason ? { level, reason } : { level });
  });

  it('should ignore an input whose thresholds are absent (off)', () => {
    expect(
      healthLevelOf({ eventLoopMs: 10_000, admittedMs: 10_000 }, defaultLoadSettings()),
    ).toEqual({ level: 'normal' });
  });

  it('should raise the local level to hard on a blocked event loop, name it, hold it, then come down', async () => {
    const { mon, t } = monitor();
    expect((await mon.poll()).level).toBe('normal');
    t.sample = { eventLoopMs: 300, admittedMs: 20 };
    expect(await mon.poll()).toMatchObject({
      level: 'hard',
      reason: 'event_loop',
      health: t.sample,
    });
    expect(t.shown.at(-1)).toEqual({ eventLoopMs: 300, admittedMs: 20 });
    t.sample = { eventLoopMs: 1 };
    t.now += 500;
    expect(await mon.poll()).toMatchObject({ level: 'hard', reason: 'event_loop' }); // held
    t.now += 600;
    expect(await mon.poll()).toMatchObject({ level: 'normal', reason: 'pressure' });
  });

  it('should keep its own health hot for load.hold after the last hot reading, even past a cool one', async () => {
    const { mon, t } = monitor();
    await mon.poll();
    expect(mon.ownHealthHot()).toBe(false);
    t.sample = { eventLoopMs: 60 }; // soft
    await mon.poll();
    t.sample = {}; // a short window right after it: no sample
    t.now += 10;
    await mon.poll();
    expect(mon.ownHealthHot()).toBe(true);
    t.now += 990;
    expect(mon.ownHealthHot()).toBe(true); // hold 1 s from the hot reading
    t.now += 1;
    expect(mon.ownHealthHot()).toBe(false);
  });

  it('should take the higher of the shared level and its own, and keep the shared reason when that is higher', async () => {
    const { mon, t, shared } = monitor();
    shared.value = { level: 'hard', fill: 0.97, source: 'search', reason: 'pressure' };
    t.sample = { admittedMs: 800 };
    expect(await mon.poll()).toMatchObject({ level: 'hard', reason: 'pressure', fill: 0.97 });
    shared.value = { level: 'soft', fill: 0.8, reason: 'pressure' };
    t.sample = { admittedMs: 3_000 };
    expect(await mon.poll()).toMatchObject({ level: 'hard', reason: 'latency', fill: 0.8 });
  });

  it('should never write its own health to the shared store, and leave a pinned level alone', async () => {
    const { mon, t, shared, computed } = monitor({ ...HEALTH, pin: 'normal' });
    shared.value = { level: 'normal', fill: 0, reason: 'pinned' };
    t.sample = { eventLoopMs: 900 };
    expect(await mon.poll()).toMatchObject({ level: 'normal', reason: 'pinned' });
    expect(computed.every((c) => c.key === 'rl:{t}:load' && c.buckets.length === 0)).toBe(true);
  });

  it('should leave the level to the buckets when no health input is configured', async () => {
    const { mon, t } = monitor(defaultLoadSettings());
    t.sample = { eventLoopMs: 900, admittedMs: 9_000 };
    const s = await mon.poll();
    expect(s).toMatchObject({ level: 'normal', reason: 'pressure' });
    expect(s.health).toBeUndefined();
  });
});

describe('NodeHealthSource', () => {
  it('should give the p99 of admitted latencies in a bounded reservoir, and start a new window per read', () => {
    const h = new NodeHealthSource();
    for (let i = 1; i <= 100; i++) h.admitted(i);
    expect(h.read(250)).toEqual({ admittedMs: 99 });
    expect(h.read(250)).toEqual({});
    for (let i = 0; i < 50_000; i++) h.admitted(i % 100 === 0 ? 5_000 : 10);
    const p99 = h.read(250).admittedMs!;
    expect([10, 5_000]).toContain(p99); // one in 100 slow: the p99 lands on the edge, from a bounded sample
  });

  it('should measure the event loop only once started', () => {
    const h = new NodeHealthSource();
    expect(h.read(250).eventLoopMs).toBeUndefined();
    h.start({ eventLoop: true, latency: false });
    expect(h.read(250).eventLoopMs).toBeGreaterThanOrEqual(0);
    h.onApplicationShutdown();
  });
});

describe('health thresholds in rateLimit.load', () => {
  it('should read { soft, hard } durations and leave an absent input off', () => {
    const { load, problems } = validateLoad(
      { eventLoopDelay: { soft: '50ms', hard: '200ms' } },
      'rateLimit.load',
    );
    expect(problems).toEqual([]);
    expect(load.eventLoopDelay).toEqual({ softMs: 50, hardMs: 200 });
    expect(load.admittedP99).toBeUndefined();
  });

  it.each([
    [{ admittedP99: { soft: '2s', hard: '1s' } }, 'rateLimit.load.admittedP99'],
    [{ eventLoopDelay: { soft: '50ms' } }, 'rateLimit.load.eventLoopDelay'],
    [{ eventLoopDelay: { soft: '50ms', hard: '1s', max: 1 } }, 'rateLimit.load.eventLoopDelay'],
  ])('should refuse %o with its path', (raw, path) => {
    const { problems } = validateLoad(raw, 'rateLimit.load');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${path.replace(/\./g, '\\.')}: `));
  });
});

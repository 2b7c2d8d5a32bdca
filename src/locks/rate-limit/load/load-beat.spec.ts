import { afterEach, describe, expect, it } from 'vitest';
import type { LockChain } from '../../../chain/lock-chain.service.js';
import type { Clock } from '../../../common/clock.js';
import type { LoadState } from '../core/load.types.js';
import type { QuotaMetrics } from '../quota.metrics.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { defaultLoadSettings } from '../settings/load.settings.js';
import type { StoreLanes } from '../store/lanes/store-lanes.js';
import type { LoadStore } from '../store/load/load-store.js';
import type { MemoryLoadStore } from '../store/load/memory-load.store.js';
import { HeartbeatRiders } from '../../../redis/heartbeat-riders.js';
import { LoadMonitor } from './load-monitor.service.js';

type Shared = Omit<LoadState, 'at'>;
const SOFT: Shared = { level: 'soft', fill: 0.6, reason: 'pressure' };
const NORMAL: Shared = { level: 'normal', fill: 0, reason: 'pressure' };

/** A monitor on a Redis lane whose own polls are counted; the heartbeat (4 s) is driven by hand. */
function monitor() {
  const t = { now: 1_000, polls: 0, shared: NORMAL };
  const store: LoadStore = {
    compute: () => (t.polls++, Promise.resolve(t.shared)),
    request: (key) => ({ keys: [key], args: [], parse: (r) => r as Shared }),
  };
  const riders = new HeartbeatRiders();
  const load = defaultLoadSettings(); // pollMs 250
  const mon = new LoadMonitor(
    { current: () => ({ policies: {} }) } as unknown as LockChain,
    { current: () => ({ remote: true }), tag: '{t}' } as unknown as StoreLanes,
    store,
    store as MemoryLoadStore,
    { show: () => undefined } as unknown as QuotaMetrics,
    { load } as RateLimitSettings,
    { now: () => t.now } as Clock,
    { read: () => ({}) },
    riders,
  );
  mon.onApplicationBootstrap(); // one poll at start
  riders.beating(4_000);
  const tick = (): Promise<void> => (mon as unknown as { tick(): Promise<void> }).tick();
  /** One heartbeat answering with `level`. */
  const beat = (level: Shared): void => riders.takeRead()?.answered(level);
  return { mon, t, tick, beat, load };
}

describe('load level carried by the heartbeat', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('should make no call of its own at a slow pace: requests read the last beat', async () => {
    const { mon, t, tick, beat } = monitor();
    stop = () => mon.onApplicationShutdown();
    await Promise.resolve();
    const start = t.polls;
    beat(NORMAL);
    // One request every 2 s for 60 s: ticks every 250 ms, a beat every 4 s.
    for (let ms = 0; ms < 60_000; ms += 250) {
      t.now += 250;
      if (ms % 4_000 === 0) beat(ms >= 30_000 ? SOFT : NORMAL);
      if (ms % 2_000 === 0) void mon.state;
      await tick();
    }
    expect(t.polls - start).toBe(0);
    expect(mon.state.level).toBe('soft'); // the beats' level
  });

  it('should poll on its own when busy: at most one call per 20 requests', async () => {
    const { mon, t, tick, beat } = monitor();
    stop = () => mon.onApplicationShutdown();
    await Promise.resolve();
    const start = t.polls;
    beat(NORMAL);
    t.shared = SOFT;
    let reads = 0;
    for (let ms = 0; ms < 10_000; ms += 250) {
      t.now += 250;
      if (ms % 4_000 === 0) beat(NORMAL);
      for (let i = 0; i < 8; i++, reads++) void mon.state; // 32 requests a second
      await tick();
    }
    const polls = t.polls - start;
    expect(polls).toBeGreaterThan(0);
    expect(polls / reads).toBeLessThanOrEqual(0.05);
  });

  it('should poll at the first request after an idle spell when no beat brings the level', async () => {
    const { mon, t, tick } = monitor();
    stop = () => mon.onApplicationShutdown();
    await Promise.resolve();
    await tick();
    const start = t.polls;
    t.now += 20_000; // no beat answered for five periods (Redis heartbeat failing)
    void mon.state;
    await Promise.resolve();
    expect(t.polls - start).toBe(1);
  });
});

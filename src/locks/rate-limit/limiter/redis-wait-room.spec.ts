import { describe, expect, it } from 'vitest';
import type { LockContext } from '../../../chain/lock.types.js';
import { ManualClock } from '../../../common/clock.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { validateSettings } from '../rate-limit.settings.js';
import type { CompiledFailQueue } from '../settings/fail-queue.validate.js';
import type { StoreLanes } from '../store/lanes/store-lanes.js';
import { RedisWaitRoom } from './redis-wait-room.js';

/** Redis stays down: the lanes never offer a lane, so a waiter waits until its deadline or the room closes. */
const down = { current: () => undefined } as unknown as StoreLanes;
const queue = { maxWaitMs: 60_000, then: 'closed' } as CompiledFailQueue;
const ctx = (appId?: string): LockContext => ({ state: { appId } }) as unknown as LockContext;

function make(failQueueMax: number, failQueuePerApp: number): RedisWaitRoom {
  const settings = { ...validateSettings({}).settings, failQueueMax, failQueuePerApp };
  return new RedisWaitRoom(
    down,
    new RateLimitMetrics(new MetricsService()),
    settings,
    new ManualClock(),
  );
}

/** Settles a promise's state without waiting for it: 'pending' when it has not resolved yet. */
async function state<T>(p: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);
}

describe(RedisWaitRoom.name, () => {
  it('should let one app wait with at most failQueuePerApp requests, and keep the other places for other apps', async () => {
    const room = make(4, 2);
    const hostile = [room.wait(ctx('hostile'), 'p', queue), room.wait(ctx('hostile'), 'p', queue)];
    // The hostile app has its share: its next request gets the fallback at once.
    await expect(state(room.wait(ctx('hostile'), 'p', queue))).resolves.toBeUndefined();
    await expect(state(room.wait(ctx('hostile'), 'p', queue))).resolves.toBeUndefined();
    // Another app, and requests without an app, still wait for Redis.
    const shop = room.wait(ctx('shop'), 'p', queue);
    const unsigned = room.wait(ctx(), 'p', queue);
    await expect(state(shop)).resolves.toBe('pending');
    await expect(state(unsigned)).resolves.toBe('pending');
    expect(room.waiting).toBe(4);
    for (const p of hostile) await expect(state(p)).resolves.toBe('pending');
    room.onModuleDestroy();
    await expect(Promise.all([...hostile, shop, unsigned])).resolves.toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('should still hold at most failQueueMax in all', async () => {
    const room = make(2, 2);
    const waits = [room.wait(ctx('a'), 'p', queue), room.wait(ctx('b'), 'p', queue)];
    await expect(state(room.wait(ctx('c'), 'p', queue))).resolves.toBeUndefined();
    expect(room.waiting).toBe(2);
    room.onModuleDestroy();
    await Promise.all(waits);
  });
});

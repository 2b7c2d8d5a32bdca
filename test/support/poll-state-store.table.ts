/**
 * The poll state stores' shared table (src/telegram/polling/poll-state.store.ts): the memory store
 * (unit ring, a manual clock) and the Redis store (integration ring, real PX expiry) pass the same cases.
 */
import { expect, it } from 'vitest';
import type { PollStateStore } from '../../src/telegram/polling/poll-state.store.js';

export interface PollStateHarness {
  store: PollStateStore;
  /** A bot id unique to this run. */
  bot: string;
  /** Lets `ms` pass for the store's expiries (a manual clock, or real time for Redis). */
  pass(ms: number): Promise<void>;
}

const LEASE = 300;

export function runPollStateStoreTable(make: () => Promise<PollStateHarness>): void {
  it('should give the lease to one poller at a time, and the offset with it', async () => {
    const { store, bot } = await make();
    expect(await store.lease(bot, 'a', LEASE)).toEqual({ held: true, offset: 0 });
    const b = await store.lease(bot, 'b', LEASE);
    expect(b.held).toBe(false);
    if (!b.held) expect(b.retryMs > 0 && b.retryMs <= LEASE).toBe(true);
    // Renewed by its holder.
    expect(await store.lease(bot, 'a', LEASE)).toEqual({ held: true, offset: 0 });
  });

  it('should move the offset only for the lease holder, and never back', async () => {
    const { store, bot } = await make();
    await store.lease(bot, 'a', LEASE);
    expect(await store.commit(bot, 'a', 5, LEASE)).toBe(5);
    expect(await store.commit(bot, 'b', 7, LEASE)).toBeUndefined();
    expect(await store.commit(bot, 'a', 3, LEASE)).toBe(5);
    await store.release(bot, 'b'); // not b's: left alone
    expect((await store.lease(bot, 'b', LEASE)).held).toBe(false);
    await store.release(bot, 'a');
    expect(await store.lease(bot, 'b', LEASE)).toEqual({ held: true, offset: 5 });
    expect((await store.lease(bot, 'a', LEASE)).held).toBe(false);
    expect(await store.commit(bot, 'a', 9, LEASE)).toBeUndefined();
  });

  it('should let another poller take a lease nobody renewed once it ends', async () => {
    const { store, bot, pass } = await make();
    await store.lease(bot, 'a', LEASE);
    await store.commit(bot, 'a', 11, LEASE);
    await pass(LEASE + 50);
    expect(await store.lease(bot, 'b', LEASE)).toEqual({ held: true, offset: 11 });
    // The old holder can no longer commit.
    expect(await store.commit(bot, 'a', 20, LEASE)).toBeUndefined();
  });
}

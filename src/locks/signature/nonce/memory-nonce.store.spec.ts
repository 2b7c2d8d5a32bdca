import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { MemoryNonceStore } from './memory-nonce.store.js';
import { NonceStoreUnavailableError } from './nonce-store.js';

// The behaviour shared with the Redis store is in test/integration/signature-nonce-store.spec.ts (one table for both).
describe(MemoryNonceStore.name, () => {
  it('should hold at most maxEntries live nonces and then fail closed instead of forgetting one', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryNonceStore(clock, { maxEntries: 3, sweepIntervalMs: 0 });
    for (const n of ['a', 'b', 'c']) expect(await store.claim('app', n, 1000)).toBe(true);
    await expect(store.claim('app', 'd', 1000)).rejects.toBeInstanceOf(NonceStoreUnavailableError);
    expect(await store.claim('app', 'a', 1000)).toBe(false);
    clock.set(1000);
    expect(await store.claim('app', 'd', 1000)).toBe(true);
    expect(store.size).toBeLessThanOrEqual(3);
  });

  it('should sweep expired nonces from the oldest end in the background', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryNonceStore(clock, { maxEntries: 100, sweepIntervalMs: 0 });
    await store.claim('app', 'a', 10);
    await store.claim('app', 'b', 10);
    clock.set(5);
    await store.claim('app', 'c', 10);
    clock.set(11);
    store.sweepOldest(clock.now());
    expect(store.size).toBe(1);
  });

  it('should sweep every expired entry when full even behind a longer-lived one', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryNonceStore(clock, { maxEntries: 3, sweepIntervalMs: 0 });
    await store.claim('slow-app', 'long', 10_000);
    await store.claim('app', 'a', 10);
    await store.claim('app', 'b', 10);
    clock.set(20);
    expect(store.size).toBe(3);
    expect(await store.claim('app', 'c', 10)).toBe(true);
    expect(store.size).toBe(2);
    expect(await store.claim('slow-app', 'long', 10_000)).toBe(false);
  });

  it('should sweep on its timer and stop when closed', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryNonceStore(clock, { maxEntries: 100, sweepIntervalMs: 5 });
    await store.claim('app', 'a', 1);
    clock.set(2);
    await expect.poll(() => store.size, { timeout: 2000 }).toBe(0);
    store.close();
  });
});

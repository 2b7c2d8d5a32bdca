import { describe, expect, it } from 'vitest';
import { MemoryNonceStore } from './memory-nonce.store.js';
import { NonceStoreUnavailableError } from './nonce-store.js';

// The behaviour shared with the Redis store is in test/integration/signature-nonce-store.spec.ts (one table for both).
describe(MemoryNonceStore.name, () => {
  it('should hold at most maxEntries live nonces and then fail closed instead of forgetting one', async () => {
    let now = 0;
    const store = new MemoryNonceStore({ maxEntries: 3, sweepIntervalMs: 0, clock: () => now });
    for (const n of ['a', 'b', 'c']) expect(await store.claim('app', n, 1000)).toBe(true);
    await expect(store.claim('app', 'd', 1000)).rejects.toBeInstanceOf(NonceStoreUnavailableError);
    expect(await store.claim('app', 'a', 1000)).toBe(false);
    now = 1000;
    expect(await store.claim('app', 'd', 1000)).toBe(true);
    expect(store.size).toBe(1);
  });

  it('should sweep expired nonces from the oldest end in the background', async () => {
    let now = 0;
    const store = new MemoryNonceStore({ maxEntries: 100, sweepIntervalMs: 0, clock: () => now });
    await store.claim('app', 'a', 10);
    await store.claim('app', 'b', 10);
    now = 5;
    await store.claim('app', 'c', 10);
    now = 11;
    store.sweepOldest(now);
    expect(store.size).toBe(1);
  });

  it('should sweep every expired entry when full even behind a longer-lived one', async () => {
    let now = 0;
    const store = new MemoryNonceStore({ maxEntries: 3, sweepIntervalMs: 0, clock: () => now });
    await store.claim('slow-app', 'long', 10_000);
    await store.claim('app', 'a', 10);
    await store.claim('app', 'b', 10);
    now = 20;
    store.sweepOldest(now);
    expect(store.size).toBe(3);
    expect(await store.claim('app', 'c', 10)).toBe(true);
    expect(store.size).toBe(2);
  });

  it('should sweep on its timer and stop when closed', async () => {
    let now = 0;
    const store = new MemoryNonceStore({ maxEntries: 100, sweepIntervalMs: 5, clock: () => now });
    await store.claim('app', 'a', 1);
    now = 2;
    await expect.poll(() => store.size, { timeout: 2000 }).toBe(0);
    store.close();
  });
});

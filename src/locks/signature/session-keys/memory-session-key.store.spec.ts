import { describe, expect, it } from 'vitest';
import { runSessionKeyStoreTable } from '../../../../test/support/session-key-store.table.js';
import { ManualClock } from '../../../common/clock.js';
import { MemoryNonceStore } from '../nonce/memory-nonce.store.js';
import { MemorySessionKeyStore } from './memory-session-key.store.js';

describe(MemorySessionKeyStore.name, () => {
  runSessionKeyStoreTable(() => {
    const clock = new ManualClock();
    const store = new MemorySessionKeyStore(
      clock,
      new MemoryNonceStore(clock, { sweepIntervalMs: 0 }),
    );
    return Promise.resolve({
      store,
      pass: (ms) => {
        clock.advance(ms);
        return Promise.resolve();
      },
    });
  });
});

describe(`${MemorySessionKeyStore.name} bounds`, () => {
  it('should refuse a new denial when full of live ones, never forget a revoked key', async () => {
    const clock = new ManualClock();
    const store = new MemorySessionKeyStore(clock, new MemoryNonceStore(clock), 2);
    await store.deny('sk1.a', 60_000);
    await store.deny('sk1.b', 60_000);
    await expect(store.deny('sk1.c', 60_000)).rejects.toMatchObject({ status: 503 });
    expect([await store.denied('sk1.a'), await store.denied('sk1.b')]).toEqual([true, true]);
    clock.advance(60_000);
    await store.deny('sk1.c', 60_000);
    expect(await store.denied('sk1.c')).toBe(true);
  });
});

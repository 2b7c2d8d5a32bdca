import { describe } from 'vitest';
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

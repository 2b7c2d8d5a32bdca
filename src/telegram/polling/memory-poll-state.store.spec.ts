import { describe } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import { runPollStateStoreTable } from '../../../test/support/poll-state-store.table.js';
import { MemoryPollStateStore } from './memory-poll-state.store.js';

describe(MemoryPollStateStore.name, () => {
  runPollStateStoreTable(() => {
    const clock = new ManualClock();
    return Promise.resolve({
      store: new MemoryPollStateStore(clock),
      bot: 'demo',
      pass: (ms: number) => Promise.resolve(clock.advance(ms)),
    });
  });
});

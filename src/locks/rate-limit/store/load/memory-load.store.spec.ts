import { describe } from 'vitest';
import { ManualClock } from '../../../../common/clock.js';
import { runLoadScenarios } from '../../../../../test/support/load-scenarios.js';
import { MemoryRateLimitStore } from '../memory-rate-limit.store.js';
import { MemoryLoadStore } from './memory-load.store.js';

describe(MemoryLoadStore.name, () => {
  runLoadScenarios(() => {
    const clock = new ManualClock();
    const store = new MemoryRateLimitStore(clock);
    return Promise.resolve({
      store,
      load: new MemoryLoadStore(store, clock),
      clock,
      prefix: 'rl:{test:rampart}',
    });
  });
});

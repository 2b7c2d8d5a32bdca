import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import { runStoreScenarios } from '../../../../test/support/rate-limit-scenarios.js';

describe(MemoryRateLimitStore.name, () => {
  let n = 0;
  runStoreScenarios(async () => {
    const clock = new ManualClock();
    const store = new MemoryRateLimitStore(clock);
    return {
      store,
      clock,
      ttl: async (k) => store.ttl(k),
      prefix: `rl:{m${++n}:rampart}`,
      // What RateLimitClaims.release(…, { charged: true }) does to the memory store.
      keepCharge: async (k) => store.keepCharge(k),
    };
  });

  it('should drop expired entries when it sweeps, so memory is bounded by live buckets', async () => {
    const clock = new ManualClock();
    const store = new MemoryRateLimitStore(clock);
    for (let i = 0; i < 100; i++) {
      await store.decide({
        buckets: [
          {
            key: `k${i}`,
            kind: 'g',
            capacity: 1,
            intervalUs: 1e6,
            cost: 1,
            shadow: false,
            soft: false,
            degradable: false,
            group: '',
          },
        ],
        degradeAt: 0,
        degradeFactor: 1,
        degradedHint: false,
      });
    }
    expect(store.size).toBe(100);
    clock.advance(2_001);
    store.sweep();
    expect(store.size).toBe(0);
  });
});

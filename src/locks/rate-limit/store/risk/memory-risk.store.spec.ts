import { describe } from 'vitest';
import { ManualClock } from '../../../../common/clock.js';
import { runRiskScenarios, type RiskHarness } from '../../../../../test/support/risk-scenarios.js';
import { runAddressScenarios } from '../../../../../test/support/risk-address-scenarios.js';
import { MemoryRateLimitStore } from '../memory-rate-limit.store.js';
import { MemoryRiskStore } from './memory-risk.store.js';

describe(MemoryRiskStore.name, () => {
  const make = (): Promise<RiskHarness> => {
    const clock = new ManualClock();
    const store = new MemoryRateLimitStore(clock);
    return Promise.resolve({
      store,
      risk: new MemoryRiskStore(store.risk, clock),
      clock,
      prefix: 'rl:{test:rampart}',
    });
  };
  runRiskScenarios(make);
  describe('a verified subject behind a shared address', () => runAddressScenarios(make));
});

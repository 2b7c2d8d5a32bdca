import { Module, OnModuleInit } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { BreakerRegistry } from './breaker/breaker-registry.service.js';
import { BREAKER_ADMIN } from './circuit-breaker.admin.js';
import { CircuitBreakerLock } from './circuit-breaker.lock.js';
import { BreakerMetrics } from './circuit-breaker.metrics.js';
import { breakerProblems } from './circuit-breaker.validate.js';

/**
 * Lock 4: one opossum breaker per backend (search, inference, any other a
 * policy names), with per-call timeouts that abort the call, a bulkhead,
 * probes, a recovery ramp and admin forces. Per process: needs no Redis.
 * No module settings (no CONFIG_FILE section): everything is in the route
 * policies' circuitBreaker slices. Time and jitter come from the app's CLOCK.
 */
@Module({
  providers: [
    BreakerMetrics,
    BreakerRegistry,
    CircuitBreakerLock,
    { provide: BREAKER_ADMIN, useExisting: BreakerRegistry },
  ],
  exports: [CircuitBreakerLock],
})
export class CircuitBreakerModule implements OnModuleInit {
  constructor(
    private readonly chain: LockChain,
    private readonly lock: CircuitBreakerLock,
    private readonly registry: BreakerRegistry,
  ) {}

  onModuleInit(): void {
    this.chain.register(this.lock);
    // The breakers exist from init on; the chain validates (and re-applies) the policies at bootstrap,
    // where invalid slices stop the boot with the list of problems.
    const policies = this.chain.current().policies;
    if (breakerProblems(policies).length === 0) this.registry.apply(policies);
  }
}

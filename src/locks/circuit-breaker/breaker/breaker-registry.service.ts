import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { HealthRegistry } from '../../../health/health-registry.service.js';
import type { BreakerAdminPort } from '../circuit-breaker.admin.js';
import { BreakerMetrics } from '../circuit-breaker.metrics.js';
import { BackendBreaker } from './backend-breaker.js';
import { resolveBackends } from './backend-plans.js';
import type { BreakerStatusView } from './breaker-status.js';

/**
 * One BackendBreaker per backend named by the policies: created when the
 * policies are first applied (module init), re-tuned in place when they
 * change, shut down when no policy names the backend any more and when the
 * app stops. Also the admin port (read-only status) and the readiness checks.
 */
@Injectable()
export class BreakerRegistry implements BreakerAdminPort, OnApplicationShutdown {
  private readonly logger = new Logger('CircuitBreaker');
  private readonly breakers = new Map<string, BackendBreaker>();

  constructor(
    private readonly metrics: BreakerMetrics,
    private readonly health: HealthRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  get(backend: string): BackendBreaker | undefined {
    return this.breakers.get(backend);
  }

  /** Applies a (validated) policy set. */
  apply(policies: Record<string, RoutePolicy>): void {
    const { plans } = resolveBackends(policies);
    for (const [backend, plan] of plans) {
      const existing = this.breakers.get(backend);
      if (existing) {
        existing.apply(plan);
        continue;
      }
      this.breakers.set(backend, new BackendBreaker(plan, this.metrics, this.clock));
      this.health.register(`breaker:${backend}`, () => this.readiness(backend), { optional: true });
      this.logger.log(
        `breaker "${backend}" for ${plan.policies.join(', ')} (options from ${plan.owner ? `policy ${plan.owner}` : 'the generic defaults'})`,
      );
    }
    for (const [backend, breaker] of this.breakers) {
      if (plans.has(backend)) continue;
      breaker.shutdown();
      this.breakers.delete(backend);
      this.logger.log(`breaker "${backend}" removed: no policy names it any more`);
    }
  }

  status(): Promise<BreakerStatusView[]> {
    return Promise.resolve([...this.breakers.values()].map((b) => b.status()));
  }

  onApplicationShutdown(): void {
    for (const b of this.breakers.values()) b.shutdown();
    this.breakers.clear();
  }

  /**
   * Readiness detail of one breaker. Refusing calls (open, half-open,
   * forced open) makes the check fail, and the check is optional: readiness
   * shows `degraded`, not `down` — the instance still answers (503s, stale
   * results, every other backend), so a load balancer must keep it.
   */
  private readiness(backend: string): Promise<Record<string, unknown>> {
    const b = this.breakers.get(backend);
    if (!b) return Promise.resolve({ phase: 'removed' });
    const s = b.status();
    const detail = {
      phase: s.phase,
      admittedPercent: s.stats.admittedPercent,
      inFlight: s.stats.inFlight,
      policies: s.policies,
    };
    if (s.phase === 'open' || s.phase === 'half_open' || s.phase === 'forced_open') {
      const next =
        s.phase === 'open' ? `; next probe in ${Math.ceil(s.stats.nextProbeInMs! / 1000)} s` : '';
      return Promise.reject(
        new Error(`circuit ${s.phase}: calls to ${backend} are refused${next}`),
      );
    }
    return Promise.resolve(detail);
  }
}

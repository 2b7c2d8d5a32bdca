import type { ModuleRef } from '@nestjs/core';
import { LockChain } from '../../chain/lock-chain.service.js';
import type { Clock } from '../../common/clock.js';
import type { LockMode } from '../../config/policy.types.js';
import { BreakerRegistry } from '../../locks/circuit-breaker/breaker/breaker-registry.service.js';
import type { MetricsService } from '../../metrics/metrics.service.js';
import type { InferenceBackend } from '../inference-backend.js';
import { ModelRouterBackend } from './model-router.backend.js';
import type { ModelRoutes } from './model-routes.types.js';

/** A provider found app-wide where it is installed (never imported as a module), once; undefined when absent. */
function finder<T>(modules: ModuleRef, token: new (...args: never[]) => T): () => T | undefined {
  let looked = false;
  let found: T | undefined;
  return () => {
    if (looked) return found;
    looked = true;
    try {
      found = modules.get(token, { strict: false });
    } catch {
      found = undefined;
    }
    return found;
  };
}

/**
 * The model router over `base`, wired to lock 4's breakers (absent = attempts
 * unguarded), the chain's policies (the mode of each upstream's breaker slice)
 * and its fallback counter.
 */
export function createModelRouter(
  routes: ModelRoutes,
  base: InferenceBackend,
  modules: ModuleRef,
  metrics: MetricsService,
  clock: Clock,
): ModelRouterBackend {
  const chain = finder(modules, LockChain);
  const mode = (backend: string): LockMode =>
    chain()?.current().policies[backend]?.locks.circuitBreaker?.mode ?? 'enforce';
  const fallbacks = metrics.counter(
    'rampart_inference_fallbacks_total',
    'Upstreams of a model alias passed over by a call, by alias, upstream and reason (rate_limited, cooling_down, circuit_open, busy, failed, timeout)',
    ['model', 'upstream', 'reason'],
  );
  return new ModelRouterBackend(routes, base, {
    clock,
    breakers: finder(modules, BreakerRegistry),
    mode,
    fallbacks,
  });
}

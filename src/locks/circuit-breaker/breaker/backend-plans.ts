import type { RoutePolicy } from '../../../config/policy.types.js';
import { GENERIC_BREAKER_OPTIONS } from '../circuit-breaker.defaults.js';
import {
  BREAKER_OPTION_KEYS,
  BreakerOptions,
  CircuitBreakerSlice,
} from '../circuit-breaker.types.js';

/** An admin force set on one of the policies of a backend. */
export interface ForceControl {
  policy: string;
  force: 'open' | 'closed';
  /** Epoch milliseconds; absent = until removed. */
  until?: number;
}

/** Everything the policies say about one backend's breaker. */
export interface BackendPlan {
  backend: string;
  options: BreakerOptions;
  /** Policy whose slice holds the options; undefined = none does, GENERIC_BREAKER_OPTIONS apply. */
  owner?: string;
  /** Policies whose calls go through this breaker (any mode), sorted. */
  policies: string[];
  forces: ForceControl[];
  /** Newest admin reset asked for (epoch ms), 0 = none. */
  resetAt: number;
}

const SLICE_PATH = (policy: string): string => `policies.${policy}.locks.circuitBreaker`;

/**
 * Resolves one plan per backend named by the policies.
 *
 * Ownership rule: the options of a backend's breaker (timeoutMs, thresholds,
 * window, reset, capacity, probes, ramp) are set in the slice of exactly ONE
 * policy naming the backend — its owner; every other policy naming that
 * backend only references it (`{mode, backend, stale}` plus admin controls).
 * Options missing from the owner come from GENERIC_BREAKER_OPTIONS. A second
 * policy setting options for the same backend is a problem (so an edit can
 * never silently be ignored). Forces and resets are breaker-wide: a force on
 * any policy of the backend applies to the breaker (`open` wins over
 * `closed`), and the newest `resetAt` of them counts.
 */
export function resolveBackends(policies: Record<string, RoutePolicy>): {
  plans: Map<string, BackendPlan>;
  problems: string[];
} {
  const plans = new Map<string, BackendPlan>();
  const problems: string[] = [];
  for (const name of Object.keys(policies).sort()) {
    const slice = policies[name]?.locks?.circuitBreaker as CircuitBreakerSlice | undefined;
    if (!slice || typeof slice.backend !== 'string') continue;
    let plan = plans.get(slice.backend);
    if (!plan) {
      plan = {
        backend: slice.backend,
        options: {
          ...GENERIC_BREAKER_OPTIONS,
          rampPercents: [...GENERIC_BREAKER_OPTIONS.rampPercents],
        },
        policies: [],
        forces: [],
        resetAt: 0,
      };
      plans.set(slice.backend, plan);
    }
    plan.policies.push(name);
    const set = BREAKER_OPTION_KEYS.filter((k) => slice[k] !== undefined);
    if (set.length > 0) {
      if (plan.owner !== undefined) {
        problems.push(
          `${SLICE_PATH(name)}: backend "${slice.backend}" already takes its options from policy "${plan.owner}"; ` +
            `set ${set.join(', ')} there, or remove them from "${plan.owner}" first (one policy owns a backend's options)`,
        );
      } else {
        plan.owner = name;
        for (const k of set)
          (plan.options as unknown as Record<string, unknown>)[k] = structuredClone(slice[k]);
      }
    }
    if (slice.force === 'open' || slice.force === 'closed') {
      plan.forces.push(
        slice.forceUntil === undefined
          ? { policy: name, force: slice.force }
          : { policy: name, force: slice.force, until: slice.forceUntil },
      );
    }
    if (typeof slice.resetAt === 'number' && slice.resetAt > plan.resetAt)
      plan.resetAt = slice.resetAt;
  }
  return { plans, problems };
}

/** The force in effect now: `open` wins over `closed`; expired forces are ignored. */
export function effectiveForce(
  forces: readonly ForceControl[],
  now: number,
): ForceControl | undefined {
  let closed: ForceControl | undefined;
  for (const f of forces) {
    if (f.until !== undefined && now >= f.until) continue;
    if (f.force === 'open') return f;
    closed ??= f;
  }
  return closed;
}

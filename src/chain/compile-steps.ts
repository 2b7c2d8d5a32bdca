import type { RoutePolicy } from '../config/policy.types.js';
import { LOCK_NAMES, LockName } from './lock-order.js';
import type { GuardLock, InterceptorLock, Lock } from './lock.types.js';
import type { Step } from './guard-refusal.js';

/** A policy's locks to run, guards and interceptors apart, each in chain order. */
export interface CompiledPolicy {
  policy: RoutePolicy;
  guards: Step<GuardLock>[];
  interceptors: Step<InterceptorLock>[];
}

/** The steps of a policy: every installed lock it has a slice for that is not off for good. */
export function compileSteps(
  policy: RoutePolicy,
  locks: ReadonlyMap<LockName, Lock>,
): CompiledPolicy {
  const c: CompiledPolicy = { policy, guards: [], interceptors: [] };
  for (const name of LOCK_NAMES) {
    const lock = locks.get(name);
    const slice = policy.locks[name];
    if (!lock || !slice) continue;
    if (slice.mode === 'off' && slice.override === undefined) continue;
    if (lock.stage === 'guard') c.guards.push({ lock, slice });
    else c.interceptors.push({ lock, slice });
  }
  return c;
}

import { ProblemException } from '../common/problem.exception.js';
import type { LockMode, LockSlice } from '../config/policy.types.js';
import type { BaseLockContext } from './lock-context.js';
import type { LockStats } from './lock-stats.service.js';
import type { GuardLock } from './lock.types.js';

/** A lock with its slice for one policy, in chain order. */
export interface Step<L> {
  lock: L;
  slice: LockSlice;
}

/** A refusal that is raised now (neither shadowed nor deferred). */
export const RAISE = Symbol('raise');

/**
 * A guard lock refused (or failed): counts it, and says what the chain does with it: go on with the
 * refusal to raise after the later guards (`onFailure: defer`, returned), go on as before (shadow mode
 * only counts: `deferred` returned), or raise it now (RAISE; always for an error that is not a problem).
 */
export function refusal(
  stats: LockStats,
  base: BaseLockContext,
  { lock, slice }: Step<GuardLock>,
  mode: Exclude<LockMode, 'off'>,
  err: unknown,
  deferred: ProblemException | undefined,
): ProblemException | undefined | typeof RAISE {
  if (!(err instanceof ProblemException)) return RAISE;
  if (mode === 'shadow') {
    stats.record(lock.name, base.policyName, 'shadow_rejected');
    return deferred;
  }
  stats.record(lock.name, base.policyName, 'rejected');
  // `onFailure: defer`: the later guards still run (e.g. the rate limiter charges a rule
  // that only applies to refused requests), then this refusal is raised, unless a later
  // guard refused first.
  if (slice.onFailure === 'defer' && !deferred) {
    base.state.deferredBy = lock.name;
    return err;
  }
  return RAISE;
}

/** The guards' verdict inside a promise chain: a refusal returned at once is thrown there (it rejects). */
export function thrown(r: void | ProblemException | Promise<void>): void | Promise<void> {
  if (r instanceof ProblemException) throw r;
  return r;
}

/** `next` once `first` is done: at once when it answered without a promise. */
export function after<T>(first: void | Promise<void>, next: () => T | Promise<T>): T | Promise<T> {
  return first === undefined ? next() : first.then(next);
}

import { ProblemException } from '../common/problem.exception.js';
import { LOCK_MODES, LockMode, LockSlice, RoutePolicy } from '../config/policy.types.js';
import { LOCK_NAMES, LockName, isLockName } from './lock-order.js';
import type { Lock } from './lock.types.js';

/**
 * Every problem with a candidate policy set; empty = valid. `required`: the policies routes use
 * (they cannot be removed); `locks`: the installed locks, each checking its own slices.
 */
export function validatePolicies(
  policies: Record<string, RoutePolicy>,
  locks: ReadonlyMap<LockName, Lock>,
  required: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const name of required) {
    if (!policies[name])
      problems.push(`policies.${name}: is used by a route and cannot be removed`);
  }
  for (const [name, policy] of Object.entries(policies)) {
    if (
      typeof policy !== 'object' ||
      policy === null ||
      typeof policy.locks !== 'object' ||
      policy.locks === null
    ) {
      problems.push(`policies.${name}: must have a "locks" map`);
      continue;
    }
    for (const [lockName, slice] of Object.entries(policy.locks)) {
      const path = `policies.${name}.locks.${lockName}`;
      if (!isLockName(lockName)) {
        problems.push(`${path}: unknown lock (known: ${LOCK_NAMES.join(', ')})`);
        continue;
      }
      if (!LOCK_MODES.includes(slice.mode)) {
        problems.push(`${path}.mode: must be one of ${LOCK_MODES.join(', ')}`);
        continue;
      }
      problems.push(...validateOverride(slice, path));
      const lock = locks.get(lockName);
      if (!lock) {
        const overrideMode = (slice.override as { mode?: string } | undefined)?.mode;
        if (slice.mode !== 'off' || (overrideMode !== undefined && overrideMode !== 'off')) {
          problems.push(`${path}: lock "${lockName}" is not installed, so its mode must be "off"`);
        }
        continue;
      }
      problems.push(...lock.validateSlice(slice, path));
    }
  }
  if (problems.length > 0) return problems;
  for (const lock of locks.values()) problems.push(...(lock.validatePolicies?.(policies) ?? []));
  return problems;
}

/** What a guard lock's refusal does: answer at once (default), or after the later guards ran. */
const ON_FAILURE: readonly string[] = ['reject', 'defer'];

/** Checks the chain's own slice options: `override` and `onFailure`. */
function validateOverride(slice: LockSlice, path: string): string[] {
  const problems: string[] = [];
  if (slice.onFailure !== undefined && !ON_FAILURE.includes(slice.onFailure as string))
    problems.push(`${path}.onFailure: must be one of ${ON_FAILURE.join(', ')}`);
  const o = slice.override;
  if (o === undefined) return problems;
  if (typeof o !== 'object' || o === null)
    return [...problems, `${path}.override: must be an object {mode, until}`];
  const { mode, until } = o as { mode?: unknown; until?: unknown };
  if (!LOCK_MODES.includes(mode as LockMode))
    problems.push(`${path}.override.mode: must be one of ${LOCK_MODES.join(', ')}`);
  if (until !== undefined && (typeof until !== 'number' || !Number.isFinite(until))) {
    problems.push(`${path}.override.until: must be epoch milliseconds`);
  }
  return problems;
}

/** A policy set that failed validatePolicies: 400 `invalid_policy`, naming every problem. */
export function policyRejected(problems: string[]): ProblemException {
  return new ProblemException(400, 'invalid_policy', 'Policy change rejected', {
    problems,
    detail: problems.join('; '),
  });
}

/**
 * Pure edits of a policy set, one per admin action. Each takes a copy of the
 * active set and returns the candidate; the caller validates it with
 * `LockChain.validate` before anything is stored.
 */
import { isLockName } from '../../chain/lock-order.js';
import type { LockMode, LockSlice, RoutePolicy } from '../../config/policy.types.js';
import { invalidChange, policyNotFound, unknownLock } from '../admin-problems.js';
import type { BreakerSliceControls } from '../../locks/circuit-breaker/circuit-breaker.admin.js';
import { isRecord } from '../../common/is-record.js';

export type Policies = Record<string, RoutePolicy>;

export const POLICY_NAME = /^[a-z][a-z0-9-]{0,62}$/;

function policyOf(policies: Policies, name: string): RoutePolicy {
  const p = Object.hasOwn(policies, name) ? policies[name] : undefined;
  if (!p) throw policyNotFound(name);
  return p;
}

function sliceOf(policies: Policies, name: string, lock: string): LockSlice {
  if (!isLockName(lock)) throw unknownLock(lock);
  const policy = policyOf(policies, name);
  return (policy.locks[lock] ??= { mode: 'off' });
}

/**
 * Sets a lock's mode on a policy. Without `until` the change is permanent
 * (any running override is dropped); with `until` (epoch ms) it is a
 * time-boxed override that the chain stops applying at that instant.
 */
export function setLockMode(
  policies: Policies,
  name: string,
  lock: string,
  mode: LockMode,
  until?: number,
): Policies {
  const slice = sliceOf(policies, name, lock);
  if (until === undefined) {
    slice.mode = mode;
    delete slice.override;
  } else {
    slice.override = { mode, until };
  }
  return policies;
}

/** Drops a running time-boxed override (the permanent mode applies again at once). */
export function clearOverride(policies: Policies, name: string, lock: string): Policies {
  delete sliceOf(policies, name, lock).override;
  return policies;
}

/**
 * Merges `patch` into a lock's slice as a JSON Merge Patch (RFC 7396):
 * objects merge key by key, `null` deletes a key, anything else (arrays
 * included) replaces. `mode` and `override` have their own endpoint.
 */
export function mergeLockOptions(
  policies: Policies,
  name: string,
  lock: string,
  patch: Record<string, unknown>,
): Policies {
  const reserved = Object.keys(patch).filter((k) => k === 'mode' || k === 'override');
  if (reserved.length > 0) {
    throw invalidChange(
      reserved.map(
        (k) =>
          `options.${k}: set the mode with PATCH /admin/policies/${name}/locks/${lock} instead`,
      ),
    );
  }
  const slice = sliceOf(policies, name, lock);
  policyOf(policies, name).locks[lock] = mergePatch(slice, patch) as LockSlice;
  return policies;
}

/** RFC 7396 JSON Merge Patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '__proto__') throw invalidChange(['options: "__proto__" is not an option name']);
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Creates or replaces a whole policy. */
export function putPolicy(policies: Policies, name: string, policy: RoutePolicy): Policies {
  if (!POLICY_NAME.test(name))
    throw invalidChange([`policies.${name}: a policy name must match [a-z][a-z0-9-]{0,62}`]);
  policies[name] = structuredClone(policy);
  return policies;
}

/** Removes a policy (the chain refuses when a route uses it). */
export function deletePolicy(policies: Policies, name: string): Policies {
  policyOf(policies, name);
  delete policies[name];
  return policies;
}

/** Forces the circuit breaker of a policy open or closed (`until` epoch ms), or removes the force (`state` undefined). */
export function forceBreaker(
  policies: Policies,
  name: string,
  state: 'open' | 'closed' | undefined,
  until?: number,
): Policies {
  const slice = sliceOf(policies, name, 'circuitBreaker') as LockSlice & BreakerSliceControls;
  delete slice.force;
  delete slice.forceUntil;
  if (state !== undefined) slice.force = state;
  if (state !== undefined && until !== undefined) slice.forceUntil = until;
  return policies;
}

/** Asks the circuit breaker of a policy to close and forget its window once (`resetAt`), dropping any force. */
export function resetBreaker(policies: Policies, name: string, now: number): Policies {
  const slice = forceBreaker(policies, name, undefined)[name]!.locks.circuitBreaker as LockSlice &
    BreakerSliceControls;
  slice.resetAt = now;
  return policies;
}

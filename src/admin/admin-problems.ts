import { ProblemException } from '../common/problem.exception.js';
import { LOCK_NAMES } from '../chain/lock-order.js';

/** The lock (or its admin port) is not part of this build: 404 `lock_not_installed`. */
export function lockNotInstalled(lock: string): ProblemException {
  return new ProblemException(404, 'lock_not_installed', 'Lock not installed', {
    detail: `The ${lock} lock is not installed in this service, so this endpoint has nothing to act on`,
    lock,
  });
}

export function policyNotFound(name: string): ProblemException {
  return new ProblemException(404, 'policy_not_found', 'No such route policy', {
    detail: `There is no route policy named "${name}"`,
  });
}

export function unknownLock(name: string): ProblemException {
  return new ProblemException(400, 'unknown_lock', 'No such lock', {
    detail: `"${name}" is not a lock (known: ${LOCK_NAMES.join(', ')})`,
  });
}

/** Rejected change: 400 naming every problem (the chain's validation or the edit's own checks). */
/** A rejected change: the chain's own `invalid_policy` answer (400, with each problem listed). */
export { policyRejected as invalidChange } from '../chain/validate-policies.js';

export function conflict(detail: string): ProblemException {
  return new ProblemException(409, 'admin_conflict', 'Concurrent change', { detail });
}

import { LOCK_NAMES, LOCK_ORDER, type LockName } from './lock-order.js';
import type { Lock } from './lock.types.js';

/**
 * Checks a lock registering with the chain against LOCK_ORDER: a known lock, at its declared stage, not
 * registered yet (`registered`). Throws otherwise: a wiring mistake, found at boot.
 */
export function checkRegistration(lock: Lock, registered: ReadonlyMap<LockName, Lock>): void {
  const entry = LOCK_ORDER.find((l) => l.name === lock.name);
  if (!entry)
    throw new Error(`LockChain: unknown lock "${lock.name}" (known: ${LOCK_NAMES.join(', ')})`);
  if (entry.stage !== lock.stage)
    throw new Error(`LockChain: lock "${lock.name}" must be a ${entry.stage}, got ${lock.stage}`);
  if (registered.has(lock.name)) throw new Error(`LockChain: lock "${lock.name}" registered twice`);
}

/** The chain in order, for the boot log: each lock, marked when it is not installed. */
export function describeChain(registered: ReadonlyMap<LockName, Lock>): string {
  return `lock chain: ${LOCK_NAMES.map((n) => `${n}${registered.has(n) ? '' : ' (not installed)'}`).join(' → ')}`;
}

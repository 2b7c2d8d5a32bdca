import type { RecoveryPhase } from './recovery-phase.js';

/**
 * An admin force on the recovery gate's phase (undefined = none; `until`: epoch ms a forced open ends).
 * Idempotent. A lifted forced open goes to half_open (a probe decides), a lifted forced closed to closed.
 */
export function applyForce(
  p: RecoveryPhase,
  force: 'open' | 'closed' | undefined,
  until?: number,
): void {
  if (force === 'open') {
    p.forcedUntil = until;
    if (p.current !== 'forced_open') p.move('forced_open');
  } else if (force === 'closed') {
    if (p.current !== 'forced_closed') p.move('forced_closed');
  } else if (p.current === 'forced_open') {
    p.move('half_open');
  } else if (p.current === 'forced_closed') {
    p.move('closed');
  }
}

/** An admin reset: closed at once, full traffic; a force stays in effect. */
export function adminReset(p: RecoveryPhase): void {
  if (p.current === 'forced_open' || p.current === 'forced_closed') return;
  p.move('closed');
}

import type { Admission, BreakerOptions, Refusal } from '../circuit-breaker.types.js';
import type { RecoveryPhase } from './recovery-phase.js';

/** Retry hint while a probe is in flight: the probe decides within about a second in the common case. */
export const PROBE_RETRY_MS = 1_000;

/**
 * The refusal the gate would give now, without moving the phase or taking a probe: for a call that was
 * admitted and then waited for a slot while the circuit stopped letting calls in. Undefined: still admitting.
 */
export function refusalNow(
  p: Pick<RecoveryPhase, 'current' | 'nextProbeAt'>,
  resetTimeoutMs: number,
  now: number,
): Admission<Refusal> | undefined {
  switch (p.current) {
    case 'open':
      return {
        admit: false,
        reason: 'open',
        retryAfterMs: Math.max(PROBE_RETRY_MS, p.nextProbeAt - now),
      };
    case 'half_open':
      return { admit: false, reason: 'half_open', retryAfterMs: PROBE_RETRY_MS };
    case 'forced_open':
      return { admit: false, reason: 'forced_open', retryAfterMs: resetTimeoutMs };
    case 'closed':
    case 'forced_closed':
    case 'recovering':
      return undefined;
  }
}

/** The wait before the first probe after a trip: the reset timeout, jittered by ±resetJitter, at least 1 ms. */
export function jitteredReset(
  timing: Pick<BreakerOptions, 'resetTimeoutMs' | 'resetJitter'>,
  random: number,
): number {
  const factor = 1 + timing.resetJitter * (2 * random - 1);
  return Math.max(1, Math.round(timing.resetTimeoutMs * factor));
}

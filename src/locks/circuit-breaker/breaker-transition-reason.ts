import type { BreakerPhase, TripReason } from './circuit-breaker.types.js';

/** Why a breaker moved, for the warning an operator reads. */
export function transitionReason(from: BreakerPhase, to: BreakerPhase, why?: TripReason): string {
  if (to === 'forced_open' || to === 'forced_closed') return 'forced by an admin';
  if (from === 'forced_open' || from === 'forced_closed') return 'admin force lifted';
  if (to === 'open' && why === 'slow_calls')
    return from === 'half_open' ? 'a probe was slow' : 'slow calls over the threshold';
  if (to === 'open') {
    if (from === 'closed') return 'error rate or timeouts over the threshold';
    if (from === 'half_open') return 'a probe failed';
    return 'a call failed while recovering';
  }
  if (to === 'half_open') return 'reset timeout elapsed: probing';
  if (to === 'recovering') return 'probes succeeded: ramping traffic back up';
  return from === 'recovering' ? 'recovered: full traffic' : 'reset by an admin';
}

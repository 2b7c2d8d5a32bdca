import type { Clock } from '../../../common/clock.js';
import type { BreakerPhase, TripReason } from '../circuit-breaker.types.js';

/**
 * The recovery gate's bookkeeping: the phase, when it last changed, and what every change resets (the
 * probe in flight, the probes won, a force's end, the trip reason once closed or forced). `epoch` is
 * bumped on every change, so the result of a probe from an earlier phase is ignored.
 */
export class RecoveryPhase {
  current: BreakerPhase = 'closed';
  changedAt: number;
  nextProbeAt = 0;
  forcedUntil: number | undefined;
  probeInFlight = false;
  probeSuccesses = 0;
  why: TripReason | undefined;
  epoch = 0;

  constructor(
    private readonly clock: Clock,
    private readonly onChange: (from: BreakerPhase, to: BreakerPhase) => void,
  ) {
    this.changedAt = clock.now();
  }

  move(to: BreakerPhase): void {
    const from = this.current;
    this.current = to;
    this.changedAt = this.clock.now();
    this.epoch++;
    this.probeInFlight = false;
    this.probeSuccesses = 0;
    if (to !== 'forced_open') this.forcedUntil = undefined;
    if (to === 'closed' || to === 'forced_open' || to === 'forced_closed') this.why = undefined;
    if (from !== to) this.onChange(from, to);
  }
}

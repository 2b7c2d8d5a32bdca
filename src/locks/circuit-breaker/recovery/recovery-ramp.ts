import type { BreakerOptions, BreakerPhase } from '../circuit-breaker.types.js';

export type RampTiming = Pick<BreakerOptions, 'rampPercents' | 'rampMs'>;

/** One call's answer while the ramp runs: let it through, or refuse until the next step. */
export type RampAdmission = { admit: true } | { admit: false; retryAfterMs: number };

/**
 * The traffic ramp of a recovering breaker: `rampPercents` in equal steps
 * over `rampMs`, then 100 %. Admits exactly the step's share of calls,
 * spread evenly (deterministic, no coin flips). The timing is passed on each
 * call, so a retuned breaker ramps by its new options at once.
 */
export class RecoveryRamp {
  private startedAt = 0;
  private credit = 0;

  start(now: number): void {
    this.startedAt = now;
    this.credit = 0;
  }

  /** Share of calls admitted at `now` (0–1): the step's percentage, 1 once the ramp is over. */
  share(timing: RampTiming, now: number): number {
    const step = this.step(timing, now);
    return step === undefined ? 1 : timing.rampPercents[step]! / 100;
  }

  /** Decides one call; undefined once the ramp is over (the breaker closes). */
  admit(timing: RampTiming, now: number): RampAdmission | undefined {
    const step = this.step(timing, now);
    if (step === undefined) return undefined;
    // Credit in percent points (exact for whole percentages); a call is admitted per 100 points.
    this.credit += timing.rampPercents[step]!;
    if (this.credit >= 100 - 1e-9) {
      this.credit -= 100;
      return { admit: true };
    }
    const stepMs = timing.rampMs / timing.rampPercents.length;
    return { admit: false, retryAfterMs: this.startedAt + (step + 1) * stepMs - now };
  }

  private step(timing: RampTiming, now: number): number | undefined {
    const { rampPercents, rampMs } = timing;
    const elapsed = now - this.startedAt;
    if (elapsed >= rampMs || rampPercents.length === 0) return undefined;
    return Math.min(rampPercents.length - 1, Math.floor((elapsed * rampPercents.length) / rampMs));
  }
}

/** Share of calls a breaker in `phase` admits at `now` (0–1): 0 while open, the ramp's step while recovering. */
export function admittedShareOf(
  phase: BreakerPhase,
  ramp: RecoveryRamp,
  timing: RampTiming,
  now: number,
): number {
  switch (phase) {
    case 'closed':
    case 'forced_closed':
      return 1;
    case 'open':
    case 'forced_open':
    case 'half_open':
      return 0;
    case 'recovering':
      return ramp.share(timing, now);
  }
}

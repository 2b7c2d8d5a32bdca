import type { Clock } from '../../../common/clock.js';
import type {
  Admission,
  BreakerOptions,
  BreakerPhase,
  ProbeOutcome,
  Refusal,
  TripReason,
} from '../circuit-breaker.types.js';
import { adminReset, applyForce } from './recovery-forces.js';
import { RecoveryPhase } from './recovery-phase.js';
import { admittedShareOf, RecoveryRamp } from './recovery-ramp.js';
import { PROBE_RETRY_MS, jitteredReset, refusalNow } from './recovery-refusal.js';

type Timing = Pick<
  BreakerOptions,
  'resetTimeoutMs' | 'resetJitter' | 'halfOpenProbes' | 'rampPercents' | 'rampMs'
>;

/**
 * The recovery state machine of one breaker (phases: see BreakerPhase):
 * jittered reset, probes, ramp (RecoveryRamp), forces. No I/O, no timers.
 */
export class RecoveryGate {
  private readonly p: RecoveryPhase;
  private readonly ramp = new RecoveryRamp();

  constructor(
    private timing: Timing,
    private readonly clock: Clock,
    private readonly onChange: (from: BreakerPhase, to: BreakerPhase) => void = () => undefined,
  ) {
    this.p = new RecoveryPhase(clock, onChange);
  }

  get phase(): BreakerPhase {
    return this.p.current;
  }

  /** Why the circuit last opened; kept until it is closed again (undefined while closed or forced). */
  get reason(): TripReason | undefined {
    return this.p.why;
  }

  /** Epoch ms of the last phase change. */
  get since(): number {
    return this.p.changedAt;
  }

  /** New options; the phase and its clocks are kept. */
  retune(timing: Timing): void {
    this.timing = timing;
  }

  /** Decides one call. May move open → half_open (reset timeout over) and recovering → closed (ramp over). */
  admit(): Admission<Refusal> {
    const now = this.clock.now();
    switch (this.p.current) {
      case 'closed':
      case 'forced_closed':
        return { admit: true };
      case 'forced_open':
        return {
          admit: false,
          reason: 'forced_open',
          retryAfterMs:
            this.p.forcedUntil !== undefined
              ? this.p.forcedUntil - now
              : this.timing.resetTimeoutMs,
        };
      case 'open':
        if (now < this.p.nextProbeAt)
          return { admit: false, reason: 'open', retryAfterMs: this.p.nextProbeAt - now };
        this.p.move('half_open');
        return this.admit();
      case 'half_open':
        if (this.p.probeInFlight)
          return { admit: false, reason: 'half_open', retryAfterMs: PROBE_RETRY_MS };
        this.p.probeInFlight = true;
        return { admit: true, probe: { epoch: this.p.epoch } };
      case 'recovering': {
        const a = this.ramp.admit(this.timing, now);
        if (a === undefined) {
          this.p.move('closed');
          return { admit: true };
        }
        return a.admit ? a : { admit: false, reason: 'recovering', retryAfterMs: a.retryAfterMs };
      }
    }
  }

  /**
   * The refusal admit() would give now, without moving the phase or taking a probe (refusalNow).
   */
  refusing(): Admission<Refusal> | undefined {
    return refusalNow(this.p, this.timing.resetTimeoutMs, this.clock.now());
  }

  /** Result of a probe admitted by admit(); ignored when the phase changed meanwhile. `why`: of a failure. */
  probeDone(epoch: number, outcome: ProbeOutcome, why: TripReason = 'probe_failed'): void {
    if (epoch !== this.p.epoch || this.p.current !== 'half_open') return;
    this.p.probeInFlight = false;
    if (outcome === 'failure') return this.trip(why);
    if (outcome === 'neutral') return;
    this.p.probeSuccesses++;
    if (this.p.probeSuccesses < this.timing.halfOpenProbes) return;
    if (this.timing.rampPercents.length === 0 || this.timing.rampMs === 0)
      return this.p.move('closed');
    this.ramp.start(this.clock.now());
    this.p.move('recovering');
  }

  /** The circuit opens (a window tripped while closed or recovering). Ignored in other phases. */
  tripped(why: TripReason = 'errors'): void {
    if (this.p.current === 'closed' || this.p.current === 'recovering') this.trip(why);
  }

  /** Applies an admin force (undefined = none). Idempotent. */
  force(force: 'open' | 'closed' | undefined, until?: number): void {
    applyForce(this.p, force, until);
  }

  /** Admin reset: closed at once, full traffic (a force stays in effect). */
  reset(): void {
    adminReset(this.p);
  }

  /** Share of calls admitted now (0–1): 0 while open, the ramp step while recovering. */
  admittedShare(): number {
    return admittedShareOf(this.p.current, this.ramp, this.timing, this.clock.now());
  }

  /** Milliseconds until the next probe while open (0 when due or not open). */
  msUntilProbe(): number {
    return this.p.current === 'open' ? Math.max(0, this.p.nextProbeAt - this.clock.now()) : 0;
  }

  private trip(why: TripReason): void {
    this.p.why = why;
    this.p.nextProbeAt = this.clock.now() + jitteredReset(this.timing, this.clock.random());
    this.p.move('open');
  }
}

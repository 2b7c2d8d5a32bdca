import type { Clock } from '../../../common/clock.js';
import type {
  Admission,
  BreakerOptions,
  BreakerPhase,
  ProbeOutcome,
  Refusal,
  TripReason,
} from '../circuit-breaker.types.js';
import { RecoveryRamp } from './recovery-ramp.js';

type Timing = Pick<
  BreakerOptions,
  'resetTimeoutMs' | 'resetJitter' | 'halfOpenProbes' | 'rampPercents' | 'rampMs'
>;

/** Retry hint while a probe is in flight: the probe decides within about a second in the common case. */
const PROBE_RETRY_MS = 1_000;

/**
 * The recovery state machine of one breaker (phases: see BreakerPhase):
 * jittered reset, probes, ramp (RecoveryRamp), forces. No I/O, no timers.
 */
export class RecoveryGate {
  private current: BreakerPhase = 'closed';
  private changedAt: number;
  private nextProbeAt = 0;
  private forcedUntil: number | undefined;
  private probeInFlight = false;
  private probeSuccesses = 0;
  private why: TripReason | undefined;
  /** Bumped on every phase change, so the result of a probe from an earlier phase is ignored. */
  private epoch = 0;
  private readonly ramp = new RecoveryRamp();

  constructor(
    private timing: Timing,
    private readonly clock: Clock,
    private readonly onChange: (from: BreakerPhase, to: BreakerPhase) => void = () => undefined,
  ) {
    this.changedAt = clock.now();
  }

  get phase(): BreakerPhase {
    return this.current;
  }

  /** Why the circuit last opened; kept until it is closed again (undefined while closed or forced). */
  get reason(): TripReason | undefined {
    return this.why;
  }

  /** Epoch ms of the last phase change. */
  get since(): number {
    return this.changedAt;
  }

  /** New options; the phase and its clocks are kept. */
  retune(timing: Timing): void {
    this.timing = timing;
  }

  /** Decides one call. May move open → half_open (reset timeout over) and recovering → closed (ramp over). */
  admit(): Admission<Refusal> {
    const now = this.clock.now();
    switch (this.current) {
      case 'closed':
      case 'forced_closed':
        return { admit: true };
      case 'forced_open':
        return {
          admit: false,
          reason: 'forced_open',
          retryAfterMs:
            this.forcedUntil !== undefined ? this.forcedUntil - now : this.timing.resetTimeoutMs,
        };
      case 'open':
        if (now < this.nextProbeAt)
          return { admit: false, reason: 'open', retryAfterMs: this.nextProbeAt - now };
        this.move('half_open');
        return this.admit();
      case 'half_open':
        if (this.probeInFlight)
          return { admit: false, reason: 'half_open', retryAfterMs: PROBE_RETRY_MS };
        this.probeInFlight = true;
        return { admit: true, probe: { epoch: this.epoch } };
      case 'recovering': {
        const a = this.ramp.admit(this.timing, now);
        if (a === undefined) {
          this.move('closed');
          return { admit: true };
        }
        return a.admit ? a : { admit: false, reason: 'recovering', retryAfterMs: a.retryAfterMs };
      }
    }
  }

  /**
   * The refusal admit() would give now, without moving the phase or taking a probe: for a call that was
   * admitted and then waited for a slot while the circuit stopped letting calls in. Undefined: still admitting.
   */
  refusing(): Admission<Refusal> | undefined {
    switch (this.current) {
      case 'open':
        return {
          admit: false,
          reason: 'open',
          retryAfterMs: Math.max(PROBE_RETRY_MS, this.nextProbeAt - this.clock.now()),
        };
      case 'half_open':
        return { admit: false, reason: 'half_open', retryAfterMs: PROBE_RETRY_MS };
      case 'forced_open':
        return { admit: false, reason: 'forced_open', retryAfterMs: this.timing.resetTimeoutMs };
      case 'closed':
      case 'forced_closed':
      case 'recovering':
        return undefined;
    }
  }

  /** Result of a probe admitted by admit(); ignored when the phase changed meanwhile. `why`: of a failure. */
  probeDone(epoch: number, outcome: ProbeOutcome, why: TripReason = 'probe_failed'): void {
    if (epoch !== this.epoch || this.current !== 'half_open') return;
    this.probeInFlight = false;
    if (outcome === 'failure') return this.trip(why);
    if (outcome === 'neutral') return;
    this.probeSuccesses++;
    if (this.probeSuccesses < this.timing.halfOpenProbes) return;
    if (this.timing.rampPercents.length === 0 || this.timing.rampMs === 0)
      return this.move('closed');
    this.ramp.start(this.clock.now());
    this.move('recovering');
  }

  /** The circuit opens (a window tripped while closed or recovering). Ignored in other phases. */
  tripped(why: TripReason = 'errors'): void {
    if (this.current === 'closed' || this.current === 'recovering') this.trip(why);
  }

  /** Applies an admin force (undefined = none). Idempotent. */
  force(force: 'open' | 'closed' | undefined, until?: number): void {
    if (force === 'open') {
      this.forcedUntil = until;
      if (this.current !== 'forced_open') this.move('forced_open');
    } else if (force === 'closed') {
      if (this.current !== 'forced_closed') this.move('forced_closed');
    } else if (this.current === 'forced_open') {
      this.move('half_open');
    } else if (this.current === 'forced_closed') {
      this.move('closed');
    }
  }

  /** Admin reset: closed at once, full traffic (a force stays in effect). */
  reset(): void {
    if (this.current === 'forced_open' || this.current === 'forced_closed') return;
    this.move('closed');
  }

  /** Share of calls admitted now (0–1): 0 while open, the ramp step while recovering. */
  admittedShare(): number {
    switch (this.current) {
      case 'closed':
      case 'forced_closed':
        return 1;
      case 'open':
      case 'forced_open':
      case 'half_open':
        return 0;
      case 'recovering':
        return this.ramp.share(this.timing, this.clock.now());
    }
  }

  /** Milliseconds until the next probe while open (0 when due or not open). */
  msUntilProbe(): number {
    return this.current === 'open' ? Math.max(0, this.nextProbeAt - this.clock.now()) : 0;
  }

  private trip(why: TripReason): void {
    this.why = why;
    const { resetTimeoutMs, resetJitter } = this.timing;
    const factor = 1 + resetJitter * (2 * this.clock.random() - 1);
    this.nextProbeAt = this.clock.now() + Math.max(1, Math.round(resetTimeoutMs * factor));
    this.move('open');
  }

  private move(to: BreakerPhase): void {
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

import CircuitBreaker from 'opossum';
import type { BreakerStatus } from '../circuit-breaker.admin.js';
import { BackendPlan, effectiveForce } from './backend-plans.js';
import type { Clock } from '../../../common/clock.js';
import type { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { BreakerRefusal } from '../circuit-breaker.problems.js';
import { BreakerTimeoutError, CallOutcome, classifyError, isFailure } from './call-outcome.js';
import type { BreakerOptions } from '../circuit-breaker.types.js';
import { BreakerPhase, RecoveryGate } from '../recovery/recovery-gate.js';

/** opossum's own reset timer must never fire: recovery is the RecoveryGate's (setTimeout's largest delay). */
const NEVER_MS = 2_147_483_647;

type Run = () => Promise<unknown>;
type Opossum = CircuitBreaker<[Run], unknown>;

/** The breaker's answer to "may this call go on?". */
export type Admission =
  | { admit: true; probe?: { epoch: number } }
  | { admit: false; reason: BreakerRefusal; retryAfterMs: number };

export interface GuardOptions {
  /** Abort the call when the timeout runs out (enforce); shadow mode only counts the timeout. */
  abortOnTimeout: boolean;
  /** True once the reply is committed (a stream sent its headers): the timeout no longer applies, the stream's own deadlines do. */
  committed(): boolean;
  /** Aborts this call's AbortController (the signal the handler passed to undici / the search query). */
  abort(reason: unknown): void;
}

export interface Guarded<T> {
  /** The handler's own promise; undefined when opossum refused before starting it. */
  work?: Promise<T>;
  /** The breaker's view: the handler's result, or its error, or a BreakerTimeoutError. */
  verdict: Promise<T>;
}

/** A breaker as the admin API shows it (BreakerStatus + our phase). */
export interface BreakerStatusView extends BreakerStatus {
  phase: BreakerPhase;
}

const OPOSSUM_KEYS = [
  'errorThresholdPercentage',
  'volumeThreshold',
  'rollingCountTimeoutMs',
  'rollingCountBuckets',
] as const;

/**
 * The breaker of one backend: an opossum CircuitBreaker (rolling window,
 * error threshold, volume threshold, errorFilter) that decides when to open,
 * a RecoveryGate for everything after (jittered reset, probes, ramp, forces),
 * our own per-call timeout and a bulkhead whose slot is held until the
 * handler's promise has settled — not when a timer fires.
 */
export class BackendBreaker {
  private plan: BackendPlan;
  private cb: Opossum;
  private readonly gate: RecoveryGate;
  private inFlight = 0;
  private forceKey = '';
  private resetApplied: number;
  private readonly totals = { calls: 0, failures: 0, timeouts: 0, refused: 0, probes: 0 };

  constructor(
    plan: BackendPlan,
    private readonly metrics: BreakerMetrics,
    private readonly clock: Clock,
  ) {
    this.plan = plan;
    this.resetApplied = plan.resetAt;
    this.gate = new RecoveryGate(plan.options, clock, (from, to) => this.moved(from, to));
    this.cb = this.createOpossum();
    this.syncForce();
    metrics.phase(plan.backend, this.gate.phase, this.gate.admittedShare());
  }

  get backend(): string {
    return this.plan.backend;
  }

  get options(): BreakerOptions {
    return this.plan.options;
  }

  get phase(): BreakerPhase {
    this.syncForce();
    return this.gate.phase;
  }

  /** Takes new options, forces and resets from the policies, keeping the phase (and the window where it can). */
  apply(plan: BackendPlan): void {
    const old = this.plan.options;
    this.plan = plan;
    this.gate.retune(plan.options);
    if (OPOSSUM_KEYS.some((k) => old[k] !== plan.options[k])) this.replaceOpossum(true);
    this.syncForce();
    if (plan.resetAt > this.resetApplied) {
      this.resetApplied = plan.resetAt;
      this.gate.reset();
      if (this.gate.phase === 'closed') this.replaceOpossum(false);
    }
  }

  /** Decides one call: let it through (maybe as a probe) or refuse it. Takes a bulkhead slot when admitted. */
  admit(): Admission {
    this.syncForce();
    const a = this.gate.admit();
    if (this.gate.phase === 'recovering')
      this.metrics.admittedShare(this.plan.backend, this.gate.admittedShare());
    if (!a.admit) {
      this.totals.refused++;
      return a;
    }
    if (this.inFlight >= this.plan.options.capacity) {
      if (a.probe) this.gate.probeDone(a.probe.epoch, 'neutral');
      this.totals.refused++;
      return { admit: false, reason: 'busy', retryAfterMs: 1_000 };
    }
    return a;
  }

  /** Runs an admitted call: through opossum (counted) or as a probe (judged by the gate). */
  guard<T>(
    ticket: Extract<Admission, { admit: true }>,
    start: () => Promise<T>,
    opts: GuardOptions,
  ): Guarded<T> {
    const t0 = performance.now();
    let work: Promise<T> | undefined;
    const run = (): Promise<T> => {
      work = this.hold(start);
      return this.timed(work, opts);
    };
    const verdict = ticket.probe ? run() : (this.cb.fire(run) as Promise<T>);
    const probe = ticket.probe;
    this.totals.calls++;
    if (probe) this.totals.probes++;
    verdict.then(
      () => this.settled('success', probe?.epoch, t0),
      // opossum's own refusals (open, shut down) never reached the backend: nothing to count.
      (err: unknown) =>
        work === undefined ? undefined : this.settled(classifyError(err), probe?.epoch, t0),
    );
    return { work, verdict };
  }

  status(): BreakerStatusView {
    const phase = this.phase;
    const force = effectiveForce(this.plan.forces, this.clock.now());
    const window = this.cb.stats;
    const view: BreakerStatusView = {
      name: this.plan.backend,
      state:
        phase === 'closed' || phase === 'forced_closed'
          ? 'closed'
          : phase === 'half_open' || phase === 'recovering'
            ? 'half_open'
            : 'open',
      phase,
      policies: [...this.plan.policies],
      since: new Date(this.gate.since).toISOString(),
      stats: {
        fires: window.fires,
        successes: window.successes,
        failures: window.failures,
        inFlight: this.inFlight,
        capacity: this.plan.options.capacity,
        admittedPercent: Math.round(this.gate.admittedShare() * 1000) / 10,
        nextProbeInMs: this.gate.msUntilProbe(),
        totalCalls: this.totals.calls,
        totalFailures: this.totals.failures,
        totalTimeouts: this.totals.timeouts,
        totalRefused: this.totals.refused,
        totalProbes: this.totals.probes,
      },
    };
    if (force) view.forced = force.force;
    return view;
  }

  shutdown(): void {
    this.cb.shutdown();
  }

  /** Starts the handler and holds a bulkhead slot until its promise has settled, whatever a timer says. */
  private hold<T>(start: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.metrics.slots(this.plan.backend, this.inFlight);
    let p: Promise<T>;
    try {
      p = Promise.resolve(start());
    } catch (err) {
      p = Promise.reject(err as Error);
    }
    const release = (): void => {
      this.inFlight--;
      this.metrics.slots(this.plan.backend, this.inFlight);
    };
    p.then(release, release);
    return p;
  }

  /** The handler's promise, or a BreakerTimeoutError (and an abort) when the timeout runs out first. */
  private timed<T>(work: Promise<T>, opts: GuardOptions): Promise<T> {
    const ms = this.plan.options.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (opts.committed()) return;
        const err = new BreakerTimeoutError(ms);
        if (opts.abortOnTimeout)
          opts.abort(new DOMException(`circuit breaker: ${err.message}`, 'TimeoutError'));
        reject(err);
      }, ms);
      work.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err as Error);
        },
      );
    });
  }

  private settled(outcome: CallOutcome, probeEpoch: number | undefined, t0: number): void {
    if (isFailure(outcome)) this.totals.failures++;
    if (outcome === 'timeout') this.totals.timeouts++;
    this.metrics.call(
      this.plan.backend,
      outcome,
      probeEpoch !== undefined,
      (performance.now() - t0) / 1000,
    );
    if (probeEpoch === undefined) return;
    // A client error proves the backend answered; a caller that went away proves nothing.
    this.gate.probeDone(
      probeEpoch,
      isFailure(outcome) ? 'failure' : outcome === 'client_gone' ? 'neutral' : 'success',
    );
  }

  private syncForce(): void {
    const f = effectiveForce(this.plan.forces, this.clock.now());
    const key = f ? `${f.force}:${f.until ?? ''}` : '';
    if (key === this.forceKey) return;
    this.forceKey = key;
    this.gate.force(f?.force, f?.until);
  }

  private moved(from: BreakerPhase, to: BreakerPhase): void {
    const counting = (p: BreakerPhase): boolean => p === 'closed' || p === 'recovering';
    // Traffic comes back: start from a clean window, so failures from before the outage cannot reopen it.
    if (counting(to) && !counting(from)) this.replaceOpossum(false);
    if (to === 'forced_closed') this.cb.disable();
    this.metrics.transition(this.plan.backend, from, to);
    this.metrics.phase(this.plan.backend, to, this.gate.admittedShare());
  }

  private replaceOpossum(keepWindow: boolean): void {
    const old = this.cb;
    this.cb = this.createOpossum(keepWindow ? old.stats : undefined);
    if (this.gate.phase === 'forced_closed') this.cb.disable();
    old.shutdown();
  }

  private createOpossum(stats?: CircuitBreaker.Stats): Opossum {
    const o = this.plan.options;
    const window = {
      rollingCountTimeout: o.rollingCountTimeoutMs,
      rollingCountBuckets: o.rollingCountBuckets,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    };
    const cb: Opossum = new CircuitBreaker((run: Run) => run(), {
      name: this.plan.backend,
      timeout: false, // ours: per call, aborts the call, ignores committed streams
      resetTimeout: NEVER_MS,
      errorThresholdPercentage: o.errorThresholdPercentage,
      volumeThreshold: o.volumeThreshold,
      errorFilter: (err: unknown) => !isFailure(classifyError(err)),
      ...window,
      ...(stats ? { status: CircuitBreaker.newStatus({ ...window, stats }) } : {}),
    });
    cb.on('open', () => this.gate.tripped());
    return cb;
  }
}

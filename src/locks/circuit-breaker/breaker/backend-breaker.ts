import type { Clock } from '../../../common/clock.js';
import type { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type {
  Admission,
  BreakerOptions,
  BreakerPhase,
  CallOutcome,
} from '../circuit-breaker.types.js';
import { RecoveryGate } from '../recovery/recovery-gate.js';
import { AdminControls } from './admin-controls.js';
import type { BackendPlan } from './backend-plans.js';
import { BreakerStatusView, statusView } from './breaker-status.js';
import { Bulkhead } from './bulkhead.js';
import { CallLedger } from './call-ledger.js';
import { classifyError } from './call-outcome.js';
import { GuardOptions, Guarded, withTimeout } from './guarded-call.js';
import { OpossumWindow } from './opossum-window.js';

/** Who makes a call, for the bulkhead's fair share: the app (or one id for every unsigned caller) and its tier. */
export interface Tenant {
  id: string;
  tier?: string;
}

const ANONYMOUS: Tenant = { id: '-' };

/**
 * The breaker of one backend: an OpossumWindow that decides when to open, a
 * RecoveryGate for everything after (jittered reset, probes, ramp, forces),
 * our own per-call timeout and a Bulkhead whose slot is held until the
 * handler's promise has settled — not when a timer fires.
 */
export class BackendBreaker {
  private plan: BackendPlan;
  private readonly gate: RecoveryGate;
  private readonly window: OpossumWindow;
  private readonly bulkhead: Bulkhead;
  private readonly controls: AdminControls;
  private readonly ledger: CallLedger;

  constructor(
    plan: BackendPlan,
    private readonly metrics: BreakerMetrics,
    private readonly clock: Clock,
  ) {
    this.plan = plan;
    this.ledger = new CallLedger(plan.backend, metrics);
    this.bulkhead = new Bulkhead((n) => metrics.slots(plan.backend, n));
    this.gate = new RecoveryGate(plan.options, clock, (from, to) => this.moved(from, to));
    this.controls = new AdminControls(this.gate, clock, plan.resetAt);
    this.window = new OpossumWindow(plan.backend, plan.options, () => this.gate.tripped());
    this.controls.sync(plan.forces);
    metrics.phase(plan.backend, this.gate.phase, this.gate.admittedShare());
  }

  get backend(): string {
    return this.plan.backend;
  }

  get options(): BreakerOptions {
    return this.plan.options;
  }

  get phase(): BreakerPhase {
    this.controls.sync(this.plan.forces);
    return this.gate.phase;
  }

  /** Takes new options, forces and resets from the policies, keeping the phase (and the window where it can). */
  apply(plan: BackendPlan): void {
    this.plan = plan;
    this.gate.retune(plan.options);
    this.window.retune(plan.options);
    this.controls.sync(plan.forces);
    if (this.controls.reset(plan.resetAt) && this.gate.phase === 'closed') this.window.clear();
  }

  /**
   * Decides one call: let it through (maybe as a probe) or refuse it. Takes a bulkhead slot when admitted.
   * `tenant`: who calls (the app, with its tier), for the bulkhead's fair share.
   */
  admit(tenant: Tenant = ANONYMOUS): Admission {
    this.controls.sync(this.plan.forces);
    const a = this.gate.admit();
    if (this.gate.phase === 'recovering')
      this.metrics.admittedShare(this.plan.backend, this.gate.admittedShare());
    if (!a.admit) {
      this.ledger.refused();
      return a;
    }
    const o = this.plan.options;
    const weight = o.shareWeights[tenant.tier ?? ''] ?? 1;
    if (
      !this.bulkhead.admits(
        tenant.id,
        weight,
        { capacity: o.capacity, fair: o.fairShare },
        this.clock.now(),
      )
    ) {
      if (a.probe) this.gate.probeDone(a.probe.epoch, 'neutral');
      this.ledger.refused();
      return { admit: false, reason: 'busy', retryAfterMs: 1_000 };
    }
    return a;
  }

  /** Runs an admitted call: through opossum (counted) or as a probe (judged by the gate). */
  guard<T>(
    ticket: Extract<Admission, { admit: true }>,
    start: () => Promise<T>,
    opts: GuardOptions,
    tenant: Tenant = ANONYMOUS,
  ): Guarded<T> {
    const weight = this.plan.options.shareWeights[tenant.tier ?? ''] ?? 1;
    const holder = { id: tenant.id, weight, now: () => this.clock.now() };
    const t0 = performance.now();
    let work: Promise<T> | undefined;
    const run = (): Promise<T> => {
      work = this.bulkhead.hold(start, holder);
      return withTimeout(work, this.plan.options.timeoutMs, opts);
    };
    const verdict = ticket.probe ? run() : this.window.fire(run);
    const probe = ticket.probe;
    this.ledger.started(probe !== undefined);
    const settled = (outcome: CallOutcome): void => {
      const proof = this.ledger.settled(outcome, probe !== undefined, t0);
      if (probe) this.gate.probeDone(probe.epoch, proof);
    };
    verdict.then(
      () => settled('success'),
      // opossum's own refusals (open, shut down) never reached the backend: nothing to count.
      (err: unknown) => (work === undefined ? undefined : settled(classifyError(err))),
    );
    return { work, verdict };
  }

  status(): BreakerStatusView {
    const phase = this.phase;
    return statusView({
      backend: this.plan.backend,
      policies: this.plan.policies,
      phase,
      forced: this.controls.force(this.plan.forces)?.force,
      gate: this.gate,
      window: this.window.stats,
      inFlight: this.bulkhead.inFlight,
      capacity: this.plan.options.capacity,
      totals: this.ledger.totals,
    });
  }

  shutdown(): void {
    this.window.shutdown();
  }

  private moved(from: BreakerPhase, to: BreakerPhase): void {
    this.window.follow(from, to);
    this.metrics.transition(this.plan.backend, from, to);
    this.metrics.phase(this.plan.backend, to, this.gate.admittedShare());
  }
}

import { HttpException } from '@nestjs/common';
import type { Clock } from '../../../common/clock.js';
import { limitSignal } from '../adaptive/concurrency-limit.js';
import type { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type {
  Admission,
  BreakerOptions,
  BreakerPhase,
  CallOutcome,
  QueueRefusal,
} from '../circuit-breaker.types.js';
import { RecoveryGate } from '../recovery/recovery-gate.js';
import { AdminControls } from './admin-controls.js';
import type { BackendPlan } from './backend-plans.js';
import { BreakerStatusView, statusView } from './breaker-status.js';
import { CallLedger } from './call-ledger.js';
import { classifyError } from './call-outcome.js';
import { GuardOptions, Guarded, withTimeout } from './guarded-call.js';
import type { QueuePlace } from './fair-queue.js';
import { OpossumWindow } from './opossum-window.js';
import { admitQueued, type WaitingRoomDeps } from './queued-admission.js';
import { type Holder, SlotDesk } from './slot-desk.js';
import { SlowCallWindow } from './slow-call-window.js';

/** Who makes a call, for the bulkhead's fair share: the app (or one id for every unsigned caller) and its tier. */
export interface Tenant {
  id: string;
  tier?: string;
}

const ANONYMOUS: Tenant = { id: '-' };

type Ticket = Extract<Admission, { admit: true }>;

/**
 * The breaker of one backend: an OpossumWindow that decides when to open on
 * errors and a SlowCallWindow on slow calls, a RecoveryGate for everything
 * after (jittered reset, probes, ramp, forces), our own per-call timeout and
 * a Bulkhead whose slot is held until the handler's promise has settled — not
 * when a timer fires, sized by the ConcurrencyLimit (fixed `capacity`, or
 * adaptive within it), where calls that find it full may wait (SlotDesk).
 */
export class BackendBreaker {
  private plan: BackendPlan;
  private readonly gate: RecoveryGate;
  private readonly window: OpossumWindow;
  private readonly slow: SlowCallWindow;
  private readonly slots: SlotDesk;
  private readonly controls: AdminControls;
  private readonly ledger: CallLedger;
  private readonly room: WaitingRoomDeps;

  constructor(
    plan: BackendPlan,
    private readonly metrics: BreakerMetrics,
    private readonly clock: Clock,
  ) {
    this.plan = plan;
    this.ledger = new CallLedger(plan.backend, metrics);
    this.slots = new SlotDesk(plan.options, clock, (n) => metrics.slots(plan.backend, n), {
      waiting: (n) => metrics.waiting(plan.backend, n),
      waited: (ms, outcome) => metrics.waited(plan.backend, outcome, ms / 1000),
    });
    this.gate = new RecoveryGate(plan.options, clock, (from, to) => this.moved(from, to));
    this.room = {
      slots: this.slots,
      refusing: () => this.gate.refusing(),
      refused: () => this.ledger.refused(),
      busy: (a, queue) => this.busy(a, queue),
    };
    this.controls = new AdminControls(this.gate, clock, plan.resetAt);
    this.window = new OpossumWindow(plan.backend, plan.options, () => this.gate.tripped('errors'));
    this.slow = new SlowCallWindow(plan.backend, plan.options, () =>
      this.gate.tripped('slow_calls'),
    );
    this.controls.sync(plan.forces);
    metrics.phase(plan.backend, this.gate.phase, this.gate.admittedShare());
    this.limitMoved();
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
    this.slow.retune(plan.options);
    this.slots.retune(plan.options);
    this.limitMoved();
    this.controls.sync(plan.forces);
    if (this.controls.reset(plan.resetAt) && this.gate.phase === 'closed') {
      this.window.clear();
      this.slow.clear();
    }
  }

  /**
   * Decides one call: let it through (maybe as a probe) or refuse it at once. The slot is taken by guard().
   * `tenant`: who calls (the app, with its tier), for the bulkhead's fair share.
   */
  admit(tenant: Tenant = ANONYMOUS): Admission {
    const a = this.gated();
    if (!a.admit) return a;
    return this.slots.free(this.holder(tenant), false) ? a : this.busy(a);
  }

  /**
   * Like admit(), but a call that finds the limit reached, and is within its fair share, waits in its app's lane
   * (round robin between apps) up to `maxWaitMs` for a freed slot (at most `maxWaiting` calls, `maxWaitingPerApp`
   * of one app); `signal` aborts when the caller goes away; `onQueued` hears its place once it is queued.
   */
  async admitWaiting(
    tenant: Tenant = ANONYMOUS,
    signal?: AbortSignal,
    onQueued?: (place: QueuePlace) => void,
  ): Promise<Admission> {
    const a = this.gated();
    const h = this.holder(tenant);
    if (!a.admit || this.slots.free(h, false)) return a;
    return admitQueued(this.room, a, h, signal, onQueued);
  }

  /** Runs an admitted call: through opossum (counted) or as a probe (judged by the gate). */
  guard<T>(
    ticket: Ticket,
    start: () => Promise<T>,
    opts: GuardOptions,
    tenant: Tenant = ANONYMOUS,
  ): Guarded<T> {
    const holder = this.holder(tenant);
    const t0 = performance.now();
    let work: Promise<T> | undefined;
    let inFlight = 0;
    const run = (): Promise<T> => {
      work = this.slots.hold(start, holder, ticket.waited === true);
      inFlight = this.slots.inFlight;
      return withTimeout(work, this.plan.options.timeoutMs, opts);
    };
    const verdict = ticket.probe ? run() : this.window.fire(run);
    const probe = ticket.probe;
    this.ledger.started(probe !== undefined);
    const settled = (outcome: CallOutcome, err?: unknown): void => {
      const ms = performance.now() - t0;
      const proof = this.ledger.settled(outcome, probe !== undefined, t0);
      const status = err instanceof HttpException ? err.getStatus() : undefined;
      if (this.slots.record(limitSignal(outcome, status), ms, inFlight)) this.limitMoved();
      const o = this.plan.options;
      if (!probe) return this.slow.record(o, outcome, ms);
      if (proof === 'success' && SlowCallWindow.slow(o, outcome, ms))
        return this.gate.probeDone(probe.epoch, 'failure', 'slow_calls');
      this.gate.probeDone(probe.epoch, proof);
    };
    verdict.then(
      () => settled('success'),
      // opossum's own refusals (open, shut down) never reached the backend: nothing to count.
      (err: unknown) => (work === undefined ? undefined : settled(classifyError(err), err)),
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
      inFlight: this.slots.inFlight,
      capacity: this.plan.options.capacity,
      totals: this.ledger.totals,
      limit: this.slots.limit.snapshot(),
      waiting: this.slots.waiting,
      slow: this.slow.stats,
    });
  }

  shutdown(): void {
    this.window.shutdown();
    this.slow.shutdown();
  }

  /** The gate's answer, counted and metered; refusals are final. */
  private gated(): Admission {
    this.controls.sync(this.plan.forces);
    const a = this.gate.admit();
    if (this.gate.phase === 'recovering')
      this.metrics.admittedShare(this.plan.backend, this.gate.admittedShare());
    if (!a.admit) this.ledger.refused();
    return a;
  }

  /** Refused for a full bulkhead: Retry-After 1 s, or `maxWaitMs` when the wait queue refused (it drains by then). */
  private busy(a: Ticket, queue?: QueueRefusal): Admission {
    if (a.probe) this.gate.probeDone(a.probe.epoch, 'neutral');
    this.ledger.refused();
    if (!queue) return { admit: false, reason: 'busy', retryAfterMs: 1_000 };
    const retryAfterMs = Math.max(1_000, this.plan.options.maxWaitMs);
    return { admit: false, reason: 'busy', retryAfterMs, queue };
  }

  private holder(tenant: Tenant): Holder {
    return { id: tenant.id, weight: this.plan.options.shareWeights[tenant.tier ?? ''] ?? 1 };
  }

  private limitMoved(): void {
    const s = this.slots.limit.snapshot();
    if (s) this.metrics.limit(this.plan.backend, s);
  }

  private moved(from: BreakerPhase, to: BreakerPhase): void {
    this.window.follow(from, to);
    this.slow.follow(from, to);
    if (to === 'open' && this.gate.reason)
      this.metrics.tripped(this.plan.backend, this.gate.reason);
    this.metrics.transition(this.plan.backend, from, to, this.gate.reason);
    this.metrics.phase(this.plan.backend, to, this.gate.admittedShare());
  }
}

import type { Clock } from '../../../common/clock.js';
import type { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, BreakerOptions, BreakerPhase } from '../circuit-breaker.types.js';
import type { BackendPlan } from './backend-plans.js';
import { busyRefusal, gateAdmission, holderOf } from './breaker-admission.js';
import { guardCall, type Ticket } from './breaker-call.js';
import { type BreakerParts, buildParts, followPhase, partsStatus } from './breaker-parts.js';
import type { BreakerStatusView } from './breaker-status.js';
import type { GuardOptions, Guarded } from './guarded-call.js';
import type { QueuePlace } from './fair-queue.js';
import { admitQueued, type WaitingRoomDeps } from './queued-admission.js';
import { ANONYMOUS, type Tenant } from './tenant.js';

export type { Tenant } from './tenant.js';

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
  private readonly p: BreakerParts;
  private readonly room: WaitingRoomDeps;

  constructor(
    plan: BackendPlan,
    private readonly metrics: BreakerMetrics,
    private readonly clock: Clock,
  ) {
    this.plan = plan;
    this.p = buildParts(plan, metrics, clock, (from, to) => this.moved(from, to));
    this.room = {
      slots: this.p.slots,
      refusing: () => this.p.gate.refusing(),
      refused: () => this.p.ledger.refused(),
      busy: (a, queue) => busyRefusal(this.p, this.plan.options, a, queue),
    };
    this.p.controls.sync(plan.forces);
    metrics.phase(plan.backend, this.p.gate.phase, this.p.gate.admittedShare());
    this.limitMoved();
  }

  get backend(): string {
    return this.plan.backend;
  }

  get options(): BreakerOptions {
    return this.plan.options;
  }

  get phase(): BreakerPhase {
    this.p.controls.sync(this.plan.forces);
    return this.p.gate.phase;
  }

  /** Takes new options, forces and resets from the policies, keeping the phase (and the window where it can). */
  apply(plan: BackendPlan): void {
    this.plan = plan;
    this.p.gate.retune(plan.options);
    this.p.window.retune(plan.options);
    this.p.slow.retune(plan.options);
    this.p.slots.retune(plan.options);
    this.limitMoved();
    this.p.controls.sync(plan.forces);
    if (this.p.controls.reset(plan.resetAt) && this.p.gate.phase === 'closed') {
      this.p.window.clear();
      this.p.slow.clear();
    }
  }

  /**
   * Decides one call: let it through (maybe as a probe) or refuse it at once. The slot is taken by guard().
   * `tenant`: who calls (the app, with its tier), for the bulkhead's fair share.
   */
  admit(tenant: Tenant = ANONYMOUS): Admission {
    const a = gateAdmission(this.p, this.plan, this.metrics);
    if (!a.admit) return a;
    return this.p.slots.free(holderOf(tenant, this.plan.options), false)
      ? a
      : busyRefusal(this.p, this.plan.options, a);
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
    const a = gateAdmission(this.p, this.plan, this.metrics);
    const h = holderOf(tenant, this.plan.options);
    if (!a.admit || this.p.slots.free(h, false)) return a;
    return admitQueued(this.room, a, h, signal, onQueued);
  }

  /** An admitted call that will not run after all (another backend's slot came first): its slot goes on. */
  decline(ticket: Ticket): void {
    if (ticket.probe) this.p.gate.probeDone(ticket.probe.epoch, 'neutral');
    if (ticket.waited) this.p.slots.declined();
  }

  /** Runs an admitted call: through opossum (counted) or as a probe (judged by the gate). */
  guard<T>(
    ticket: Ticket,
    start: () => Promise<T>,
    opts: GuardOptions,
    tenant: Tenant = ANONYMOUS,
  ): Guarded<T> {
    const holder = holderOf(tenant, this.plan.options);
    return guardCall(
      this.p,
      () => this.plan.options,
      () => this.limitMoved(),
      { ticket, start, opts, holder },
    );
  }

  status(): BreakerStatusView {
    return partsStatus(this.plan, this.p, this.phase);
  }

  shutdown(): void {
    this.p.window.shutdown();
    this.p.slow.shutdown();
  }

  private limitMoved(): void {
    const s = this.p.slots.limit.snapshot();
    if (s) this.metrics.limit(this.plan.backend, s);
  }

  private moved(from: BreakerPhase, to: BreakerPhase): void {
    followPhase(this.p, this.metrics, this.plan.backend, [from, to]);
  }
}

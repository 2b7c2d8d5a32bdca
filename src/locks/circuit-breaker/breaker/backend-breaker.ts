import { HttpException } from '@nestjs/common';
import type { Clock } from '../../../common/clock.js';
import { ConcurrencyLimit, limitSignal } from '../adaptive/concurrency-limit.js';
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
import { SlotQueue } from './slot-queue.js';
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
 * when a timer fires. Its size is the ConcurrencyLimit (fixed `capacity`, or
 * adaptive within it); calls that find it full may wait in a SlotQueue.
 */
export class BackendBreaker {
  private plan: BackendPlan;
  private readonly gate: RecoveryGate;
  private readonly window: OpossumWindow;
  private readonly slow: SlowCallWindow;
  private readonly limit: ConcurrencyLimit;
  private readonly queue: SlotQueue;
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
    this.limit = new ConcurrencyLimit(plan.options, clock);
    this.queue = new SlotQueue((n) => metrics.waiting(plan.backend, n));
    this.bulkhead = new Bulkhead((n) => {
      metrics.slots(plan.backend, n);
      this.passOn();
    });
    this.gate = new RecoveryGate(plan.options, clock, (from, to) => this.moved(from, to));
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
    this.limit.retune(plan.options);
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
    return this.slot(tenant, false) ? a : this.busy(a);
  }

  /**
   * Like admit(), but a call that finds the limit reached, and is within its fair share, waits in order up to
   * `maxWaitMs` for a freed slot (at most `maxWaiting` calls wait); `signal` aborts when the caller goes away.
   */
  async admitWaiting(tenant: Tenant = ANONYMOUS, signal?: AbortSignal): Promise<Admission> {
    const a = this.gated();
    if (!a.admit || this.slot(tenant, false)) return a;
    const o = this.plan.options;
    if (
      a.probe ||
      !this.bulkhead.shares.fair(tenant.id, this.weight(tenant), this.limit.limit, this.clock.now())
    )
      return this.busy(a);
    while (await this.queue.wait(o.maxWaitMs, o.maxWaiting, signal)) {
      const refusal = this.closedMeanwhile();
      if (refusal || !this.slot(tenant, true)) {
        // Opened while it waited, or over its share now (another app started waiting): the slot goes on.
        this.queue.took();
        this.passOn();
        if (!refusal) return this.busy(a);
        this.ledger.refused();
        return refusal;
      }
      return { ...a, waited: true };
    }
    return this.busy(a);
  }

  /** Runs an admitted call: through opossum (counted) or as a probe (judged by the gate). */
  guard<T>(
    ticket: Ticket,
    start: () => Promise<T>,
    opts: GuardOptions,
    tenant: Tenant = ANONYMOUS,
  ): Guarded<T> {
    const holder = { id: tenant.id, weight: this.weight(tenant), now: () => this.clock.now() };
    const t0 = performance.now();
    let work: Promise<T> | undefined;
    let inFlight = 0;
    const run = (): Promise<T> => {
      work = this.bulkhead.hold(start, holder);
      inFlight = this.bulkhead.inFlight;
      if (ticket.waited) {
        this.queue.took();
        this.passOn();
      }
      return withTimeout(work, this.plan.options.timeoutMs, opts);
    };
    const verdict = ticket.probe ? run() : this.window.fire(run);
    const probe = ticket.probe;
    this.ledger.started(probe !== undefined);
    const settled = (outcome: CallOutcome, err?: unknown): void => {
      const ms = performance.now() - t0;
      const proof = this.ledger.settled(outcome, probe !== undefined, t0);
      const status = err instanceof HttpException ? err.getStatus() : undefined;
      if (this.limit.record(limitSignal(outcome, status), ms, inFlight)) this.limitMoved();
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
      inFlight: this.bulkhead.inFlight,
      capacity: this.plan.options.capacity,
      totals: this.ledger.totals,
      limit: this.limit.snapshot(),
      waiting: this.queue.waiting,
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

  /**
   * Whether `tenant` may take a slot now: below the limit, within its fair share, and — unless the slot was
   * handed to it by the queue — behind nobody waiting. A refusal marks the tenant waiting (fair share).
   */
  private slot(tenant: Tenant, handedOff: boolean): boolean {
    const weight = this.weight(tenant);
    const now = this.clock.now();
    if (!handedOff && this.queue.busy) {
      this.bulkhead.shares.refused(tenant.id, weight, now);
      return false;
    }
    const o = this.plan.options;
    return this.bulkhead.admits(
      tenant.id,
      weight,
      { capacity: this.limit.limit, fair: o.fairShare },
      now,
    );
  }

  private busy(a: Ticket): Admission {
    if (a.probe) this.gate.probeDone(a.probe.epoch, 'neutral');
    this.ledger.refused();
    return { admit: false, reason: 'busy', retryAfterMs: 1_000 };
  }

  private weight(tenant: Tenant): number {
    return this.plan.options.shareWeights[tenant.tier ?? ''] ?? 1;
  }

  private limitMoved(): void {
    const s = this.limit.snapshot();
    if (s) this.metrics.limit(this.plan.backend, s);
    this.passOn(); // a higher limit has room for calls that wait
  }

  /** Hands free slots to waiting calls, in order. */
  private passOn(): void {
    while (this.queue.waiting > 0 && this.bulkhead.inFlight + this.queue.pending < this.limit.limit)
      this.queue.handOff();
  }

  /** The refusal for a call that waited while the circuit stopped letting calls in; undefined if it still does. */
  private closedMeanwhile(): Admission | undefined {
    switch (this.gate.phase) {
      case 'open':
        return {
          admit: false,
          reason: 'open',
          retryAfterMs: Math.max(1_000, this.gate.msUntilProbe()),
        };
      case 'half_open':
        return { admit: false, reason: 'half_open', retryAfterMs: 1_000 };
      case 'forced_open':
        return {
          admit: false,
          reason: 'forced_open',
          retryAfterMs: this.plan.options.resetTimeoutMs,
        };
      case 'closed':
      case 'forced_closed':
      case 'recovering':
        return undefined;
    }
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

import type { Clock } from '../../../common/clock.js';
import type { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { BreakerPhase } from '../circuit-breaker.types.js';
import { RecoveryGate } from '../recovery/recovery-gate.js';
import { AdminControls } from './admin-controls.js';
import type { BackendPlan } from './backend-plans.js';
import { type BreakerStatusView, statusView } from './breaker-status.js';
import { CallLedger } from './call-ledger.js';
import { OpossumWindow } from './opossum-window.js';
import { SlotDesk } from './slot-desk.js';
import { SlowCallWindow } from './slow-call-window.js';

/** The parts of one backend's breaker (BackendBreaker wires them together). */
export interface BreakerParts {
  gate: RecoveryGate;
  window: OpossumWindow;
  slow: SlowCallWindow;
  slots: SlotDesk;
  controls: AdminControls;
  ledger: CallLedger;
}

/**
 * Builds the parts of a backend's breaker: the windows trip the gate (errors, slow calls); the gate reports each
 * phase change to `moved`; the slot desk reports its slots and waits to the metrics.
 */
export function buildParts(
  plan: BackendPlan,
  metrics: BreakerMetrics,
  clock: Clock,
  moved: (from: BreakerPhase, to: BreakerPhase) => void,
): BreakerParts {
  const b = plan.backend;
  const slots = new SlotDesk(plan.options, clock, (n) => metrics.slots(b, n), {
    waiting: (n) => metrics.waiting(b, n),
    waited: (ms, outcome) => metrics.waited(b, outcome, ms / 1000),
  });
  const gate = new RecoveryGate(plan.options, clock, moved);
  return {
    gate,
    slots,
    ledger: new CallLedger(b, metrics),
    controls: new AdminControls(gate, clock, plan.resetAt),
    window: new OpossumWindow(b, plan.options, () => gate.tripped('errors')),
    slow: new SlowCallWindow(b, plan.options, () => gate.tripped('slow_calls')),
  };
}

/** A phase change: the windows follow it, the metrics count it (and the trip, with its reason). */
export function followPhase(
  p: BreakerParts,
  metrics: BreakerMetrics,
  backend: string,
  [from, to]: [BreakerPhase, BreakerPhase],
): void {
  p.window.follow(from, to);
  p.slow.follow(from, to);
  if (to === 'open' && p.gate.reason) metrics.tripped(backend, p.gate.reason);
  metrics.transition(backend, from, to, p.gate.reason);
  metrics.phase(backend, to, p.gate.admittedShare());
}

/** The admin view of a backend's breaker in `phase` (forces already applied). */
export function partsStatus(
  plan: BackendPlan,
  p: BreakerParts,
  phase: BreakerPhase,
): BreakerStatusView {
  return statusView({
    backend: plan.backend,
    policies: plan.policies,
    phase,
    forced: p.controls.force(plan.forces)?.force,
    gate: p.gate,
    window: p.window.stats,
    inFlight: p.slots.inFlight,
    capacity: plan.options.capacity,
    totals: p.ledger.totals,
    limit: p.slots.limit.snapshot(),
    waiting: p.slots.waiting,
    slow: p.slow.stats,
  });
}

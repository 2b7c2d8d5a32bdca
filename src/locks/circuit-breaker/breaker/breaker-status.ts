import type CircuitBreaker from 'opossum';
import type { BreakerState, BreakerStatus } from '../circuit-breaker.admin.js';
import type { BreakerPhase } from '../circuit-breaker.types.js';
import type { RecoveryGate } from '../recovery/recovery-gate.js';
import type { BreakerTotals } from './call-ledger.js';

/** A breaker as the admin API shows it (BreakerStatus + our phase). */
export interface BreakerStatusView extends BreakerStatus {
  phase: BreakerPhase;
}

/** What one breaker knows about itself, gathered for statusView(). */
export interface BreakerSnapshot {
  backend: string;
  policies: readonly string[];
  phase: BreakerPhase;
  forced?: 'open' | 'closed';
  gate: RecoveryGate;
  window: CircuitBreaker.Stats;
  inFlight: number;
  capacity: number;
  totals: Readonly<BreakerTotals>;
}

/** Our phase as opossum's three states: recovering still lets only part of the traffic in. */
function stateOf(phase: BreakerPhase): BreakerState {
  switch (phase) {
    case 'closed':
    case 'forced_closed':
      return 'closed';
    case 'half_open':
    case 'recovering':
      return 'half_open';
    case 'open':
    case 'forced_open':
      return 'open';
  }
}

export function statusView(s: BreakerSnapshot): BreakerStatusView {
  const view: BreakerStatusView = {
    name: s.backend,
    state: stateOf(s.phase),
    phase: s.phase,
    policies: [...s.policies],
    since: new Date(s.gate.since).toISOString(),
    stats: {
      fires: s.window.fires,
      successes: s.window.successes,
      failures: s.window.failures,
      inFlight: s.inFlight,
      capacity: s.capacity,
      admittedPercent: Math.round(s.gate.admittedShare() * 1000) / 10,
      nextProbeInMs: s.gate.msUntilProbe(),
      totalCalls: s.totals.calls,
      totalFailures: s.totals.failures,
      totalTimeouts: s.totals.timeouts,
      totalRefused: s.totals.refused,
      totalProbes: s.totals.probes,
    },
  };
  if (s.forced) view.forced = s.forced;
  return view;
}

import type CircuitBreaker from 'opossum';
import type { BreakerState, BreakerStatus } from '../circuit-breaker.admin.js';
import type { LimitSnapshot } from '../adaptive/adaptive.types.js';
import type { BreakerPhase, TripReason } from '../circuit-breaker.types.js';
import type { RecoveryGate } from '../recovery/recovery-gate.js';
import type { BreakerTotals } from './call-ledger.js';

/** A breaker as the admin API shows it (BreakerStatus + our phase). */
export interface BreakerStatusView extends BreakerStatus {
  phase: BreakerPhase;
  /** Why the circuit last opened, while it is not closed: errors, slow_calls, probe_failed. */
  reason?: TripReason;
  /** The adaptive concurrency limit and its inputs (RTTs in ms), when the backend opted in. */
  adaptive?: AdaptiveView;
}

/** The adaptive limit as the admin API shows it. */
export interface AdaptiveView {
  limit: number;
  minLimit: number;
  maxLimit: number;
  inFlight: number;
  minRttMs?: number;
  sampleRttMs?: number;
  gradient?: number;
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
  limit?: LimitSnapshot & { minLimit: number; maxLimit: number };
  waiting: number;
  slow: { calls: number; slow: number };
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
      waiting: s.waiting,
      slowCalls: s.slow.slow,
    },
  };
  if (s.forced) view.forced = s.forced;
  const why = s.gate.reason;
  if (why && s.phase !== 'closed') view.reason = why;
  if (s.limit) {
    const r = (ms: number | undefined): number | undefined =>
      ms === undefined ? undefined : Math.round(ms * 10) / 10;
    view.adaptive = {
      limit: s.limit.limit,
      minLimit: s.limit.minLimit,
      maxLimit: s.limit.maxLimit,
      inFlight: s.inFlight,
      ...(s.limit.minRttMs !== undefined ? { minRttMs: r(s.limit.minRttMs) } : {}),
      ...(s.limit.sampleRttMs !== undefined ? { sampleRttMs: r(s.limit.sampleRttMs) } : {}),
      ...(s.limit.gradient !== undefined
        ? { gradient: Math.round(s.limit.gradient * 1000) / 1000 }
        : {}),
    };
  }
  return view;
}

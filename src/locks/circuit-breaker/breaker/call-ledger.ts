import type { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { CallOutcome, ProbeOutcome } from '../circuit-breaker.types.js';
import { isFailure } from './call-outcome.js';

/** Calls counted since the breaker was created (the rolling window's counts start over; these do not). */
export interface BreakerTotals {
  calls: number;
  failures: number;
  timeouts: number;
  refused: number;
  probes: number;
}

/** The books of one breaker: its totals, and every call's outcome and duration in the metrics. */
export class CallLedger {
  readonly totals: BreakerTotals = { calls: 0, failures: 0, timeouts: 0, refused: 0, probes: 0 };

  constructor(
    private readonly backend: string,
    private readonly metrics: BreakerMetrics,
  ) {}

  refused(): void {
    this.totals.refused++;
  }

  started(probe: boolean): void {
    this.totals.calls++;
    if (probe) this.totals.probes++;
  }

  /** Counts a call that ended (started at performance.now() `t0`); returns what it proves about the backend. */
  settled(outcome: CallOutcome, probe: boolean, t0: number): ProbeOutcome {
    if (isFailure(outcome)) this.totals.failures++;
    if (outcome === 'timeout') this.totals.timeouts++;
    this.metrics.call(this.backend, outcome, probe, (performance.now() - t0) / 1000);
    // A client error proves the backend answered; a caller that went away proves nothing.
    return isFailure(outcome) ? 'failure' : outcome === 'client_gone' ? 'neutral' : 'success';
  }
}

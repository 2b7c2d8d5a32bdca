import type { Clock } from '../../../common/clock.js';
import type { RecoveryGate } from '../recovery/recovery-gate.js';
import { ForceControl, effectiveForce } from './backend-plans.js';

/**
 * Brings the admin controls of a backend's policies to its RecoveryGate: the
 * force in effect (a force expires by itself at forceUntil, so it is checked
 * again on every call) and every newer reset, once.
 */
export class AdminControls {
  private forceKey = '';

  constructor(
    private readonly gate: RecoveryGate,
    private readonly clock: Clock,
    /** Epoch ms of the newest reset applied (the plan's at creation: it is not applied again). */
    private resetApplied: number,
  ) {}

  /** The force in effect now, if any (`open` wins over `closed`). */
  force(forces: readonly ForceControl[]): ForceControl | undefined {
    return effectiveForce(forces, this.clock.now());
  }

  /** Hands the gate the force in effect now, when it changed since the last call. */
  sync(forces: readonly ForceControl[]): void {
    const f = this.force(forces);
    const key = f ? `${f.force}:${f.until ?? ''}` : '';
    if (key === this.forceKey) return;
    this.forceKey = key;
    this.gate.force(f?.force, f?.until);
  }

  /** Resets the gate when `resetAt` is newer than the last reset applied; true when it did. */
  reset(resetAt: number): boolean {
    if (resetAt <= this.resetApplied) return false;
    this.resetApplied = resetAt;
    this.gate.reset();
    return true;
  }
}

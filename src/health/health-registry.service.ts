import { Injectable } from '@nestjs/common';

/**
 * A readiness check: resolves with details when the dependency is usable,
 * throws (or rejects) when it is not. `degraded` results keep readiness up.
 */
export type ReadinessCheck = (signal: AbortSignal) => Promise<Record<string, unknown> | void>;

export interface RegisteredCheck {
  name: string;
  check: ReadinessCheck;
  /** When true, a failure marks the service degraded instead of not ready. */
  optional: boolean;
}

/**
 * What one part must have before the instance may take traffic ("armed"):
 * `pending` lists what is not armed yet (the instance is not ready), `byChoice`
 * what an operator chose to serve unarmed (ready, and said so). No secrets.
 */
export interface Arming {
  pending: string[];
  byChoice?: string[];
}

/** Answers synchronously from in-memory state (no I/O): asked on every readiness probe. */
export type ArmingCheck = () => Arming;

/** Modules register what `/health/ready` must check (Redis, search backend, inference upstream, breakers…). */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, RegisteredCheck>();
  private readonly arming = new Map<string, ArmingCheck>();
  private isDraining = false;
  private readonly detailReaders: ((authorization: unknown) => boolean)[] = [];

  register(name: string, check: ReadinessCheck, opts: { optional?: boolean } = {}): void {
    this.checks.set(name, { name, check, optional: opts.optional ?? false });
  }

  all(): RegisteredCheck[] {
    return [...this.checks.values()];
  }

  /** A part that must be armed before readiness (filters built, scripts loaded, policies synced…). */
  registerArming(name: string, check: ArmingCheck): void {
    this.arming.set(name, check);
  }

  /** Every part's arming, merged: `pending` entries are prefixed with the part's name. */
  armed(): Required<Arming> {
    const pending: string[] = [];
    const byChoice: string[] = [];
    for (const [name, check] of this.arming) {
      const a = check();
      for (const p of a.pending) pending.push(`${name}: ${p}`);
      for (const c of a.byChoice ?? []) byChoice.push(`${name}: ${c}`);
    }
    return { pending, byChoice };
  }

  /**
   * A credential that may read `/health/ready`'s detail (every check's
   * details, backends, bots): the admin tokens, METRICS_TOKEN. Without one,
   * the answer is only the status and the reasons.
   */
  allowDetail(reader: (authorization: unknown) => boolean): void {
    this.detailReaders.push(reader);
  }

  /** Whether this `Authorization` value may read the detail (every reader is asked: no early exit). */
  mayReadDetail(authorization: unknown): boolean {
    let ok = false;
    for (const read of this.detailReaders) if (read(authorization)) ok = true;
    return ok;
  }

  /** Readiness goes down for good: the instance is shutting down (SIGTERM). */
  startDrain(): void {
    this.isDraining = true;
  }

  get draining(): boolean {
    return this.isDraining;
  }
}

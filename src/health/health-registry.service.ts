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

/** Modules register what `/health/ready` must check (Redis, search backend, inference upstream, breakers…). */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, RegisteredCheck>();

  register(name: string, check: ReadinessCheck, opts: { optional?: boolean } = {}): void {
    this.checks.set(name, { name, check, optional: opts.optional ?? false });
  }

  all(): RegisteredCheck[] {
    return [...this.checks.values()];
  }
}

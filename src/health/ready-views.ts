import type { HealthCheckResult } from '@nestjs/terminus';
import { ProblemException } from '../common/problem.exception.js';

/**
 * The two views of `/health/ready`. Public (a probe, a load balancer): the
 * status and the reasons, nothing that names a backend, a bot, a token
 * fingerprint or a load action. With the admin token or METRICS_TOKEN: every
 * check with its details, as terminus reports them.
 */

/** The public 200: `{ status }` only. */
export function publicReady(result: HealthCheckResult): { status: string } {
  return { status: result.status };
}

/**
 * The 503 of `/health/ready` as problem+json `not_ready`: `detail` says why
 * (draining, what is not armed, or which required check is down), `pending`
 * lists what is not armed yet; with `full`, also `info`, `down` (the failed
 * checks) and `details` (every check). Publicly a failed check is named but
 * its message (which may name a host) is not given.
 */
export function notReady(result: HealthCheckResult, full: boolean): ProblemException {
  const armed = result.error?.armed as { message?: string; pending?: string[] } | undefined;
  const down = Object.entries(result.error ?? {}).map(([name, v]) =>
    full ? `${name}: ${(v as { message?: string }).message ?? 'down'}` : `${name}: down`,
  );
  const reasons = { detail: armed?.message ?? down.join('; '), pending: armed?.pending ?? [] };
  return new ProblemException(
    503,
    'not_ready',
    'Not ready',
    full
      ? { ...reasons, info: result.info ?? {}, down: result.error ?? {}, details: result.details }
      : reasons,
  );
}

import { ProblemException } from '../../../common/problem.exception.js';
import type { BanEntry } from './ban.types.js';

/**
 * 403 `banned`: the admin denied this subject entry until a time. Says until when (and Retry-After)
 * and the admin's reason; never which subject (no id, no hash).
 */
export function banProblem(ban: BanEntry, nowMs: number): ProblemException {
  const retryAfter = Math.max(1, Math.ceil((ban.untilMs - nowMs) / 1000));
  const until = new Date(ban.untilMs).toISOString();
  return ProblemException.fast(403, 'banned', 'Banned', {
    detail:
      ban.reason === undefined
        ? `Access is denied until ${until}.`
        : `Access is denied until ${until}: ${ban.reason}`,
    headers: { 'Retry-After': String(retryAfter) },
    retry_after: retryAfter,
    until,
    ...(ban.reason === undefined ? {} : { reason: ban.reason }),
  });
}

import { invalidChange } from '../admin-problems.js';

/** ISO 8601 time with a zone, e.g. `2030-01-31T12:00:00Z` or `…+02:00`. */
export const ISO_TIME_WITH_ZONE =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Epoch milliseconds of an ISO time that must lie in the future; a 400 naming `field` otherwise. */
export function futureInstant(iso: string, field: string, now = Date.now()): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw invalidChange([`${field}: not a valid time`]);
  if (ms <= now)
    throw invalidChange([
      `${field}: must be in the future (server time ${new Date(now).toISOString()})`,
    ]);
  return ms;
}

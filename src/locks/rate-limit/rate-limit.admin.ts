import type { RoutePolicy } from '../../config/policy.types.js';
import { isRecord } from '../../common/is-record.js';

/** The tier every app and user has unless told otherwise (multiplier 1). */
export const DEFAULT_TIER = 'free';

/**
 * The tiers the rate-limit lock knows in a policy set: `free` and every tier
 * some `rateLimit` slice gives a multiplier. The admin API refuses an app of
 * any other tier (it would silently be limited as 1×).
 */
export function knownTiers(policies: Record<string, RoutePolicy>): string[] {
  const tiers = new Set([DEFAULT_TIER]);
  for (const p of Object.values(policies)) {
    const t = (p.locks.rateLimit as { tiers?: unknown } | undefined)?.tiers;
    if (isRecord(t)) for (const name of Object.keys(t)) tiers.add(name);
  }
  return [...tiers].sort();
}

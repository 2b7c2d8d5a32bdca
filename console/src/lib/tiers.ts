import type { RoutePolicy } from './types.js';

/** `free` and every tier a rate-limit slice gives a multiplier (the tiers the service accepts for an app). */
export function knownTiers(policies: Record<string, RoutePolicy>): string[] {
  const tiers = new Set(['free']);
  for (const p of Object.values(policies)) {
    const t = p.locks.rateLimit?.tiers;
    if (typeof t === 'object' && t !== null && !Array.isArray(t))
      for (const name of Object.keys(t)) tiers.add(name);
  }
  return [...tiers].sort();
}

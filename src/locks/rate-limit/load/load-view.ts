import type { RoutePolicy } from '../../../config/policy.types.js';
import {
  type LoadAction,
  type LoadSettings,
  type LoadState,
  loadAction,
} from '../core/load.types.js';
import type { RateLimitSlice } from '../rate-limit.types.js';

/** A policy's place in the degrade order and what it does at the current level. */
export interface PolicyLoadView {
  policy: string;
  rank: number;
  critical: boolean;
  action: LoadAction;
  /** Rules ranked apart from their policy that are reduced at this level (e.g. telegram's `ask`). */
  reducedRules: string[];
}

export type LoadView = LoadState & { policies: PolicyLoadView[] };

/** The level and every policy's action at it. */
export function loadView(
  current: LoadState,
  policies: Record<string, RoutePolicy>,
  s: Pick<LoadSettings, 'reduceFrom' | 'cacheFrom'>,
): LoadView {
  const out: PolicyLoadView[] = [];
  for (const [name, p] of Object.entries(policies)) {
    const slice = p.locks.rateLimit as RateLimitSlice | undefined;
    const rank = slice?.degradeRank ?? 0;
    const critical = p.critical === true;
    const reducedRules =
      current.level === 'soft' && !critical
        ? (slice?.rules ?? [])
            .filter((r) => r.dimension !== 'global' && (r.degradeRank ?? rank) >= s.reduceFrom)
            .map((r) => `${name}.${r.name}`)
        : [];
    out.push({
      policy: name,
      rank,
      critical,
      action: loadAction(current.level, rank, critical, s),
      reducedRules,
    });
  }
  return { ...current, policies: out };
}

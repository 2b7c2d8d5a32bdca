import type { RoutePolicy } from '../../../config/policy.types.js';
import { capacityOf } from '../core/money.js';
import { parseRate } from '../core/rate-parse.js';
import { gcraWarm } from '../core/kinds/gcra-warm.js';
import { kindOfAlgorithm } from '../core/rule-kinds.js';
import type { RateLimitSlice } from '../rate-limit.types.js';
import type { GlobalBucket } from '../store/load/load-store.js';

/**
 * The enforced global buckets of every ranked policy, the pressure sources of the load level
 * (service hash tag `tag` only: one script call).
 */
export function globalBuckets(policies: Record<string, RoutePolicy>, tag: string): GlobalBucket[] {
  const out: GlobalBucket[] = [];
  for (const [policy, p] of Object.entries(policies)) {
    const slice = p.locks.rateLimit as RateLimitSlice | undefined;
    // Only policies that take part in the degrade order (a degradeRank) are pressure sources.
    if (!slice || slice.mode === 'off' || slice.degradeRank === undefined) continue;
    for (const r of slice.rules ?? []) {
      if (r.dimension !== 'global' || r.mode === 'shadow' || (r.scope ?? 'service') !== 'service')
        continue;
      const rate = parseRate(r.rate);
      if (!rate) continue;
      out.push({
        policy,
        key: `rl:${tag}:global:-:${r.action ?? `${policy}.${r.name}`}`,
        // A warm-up rule keeps a hash (core/kinds/gcra-warm.ts).
        kind: r.warmUp === undefined ? kindOfAlgorithm(r.algorithm).code : gcraWarm.code,
        capacity: capacityOf(r),
        intervalUs: 1e6 / rate,
      });
    }
  }
  return out;
}

import { capacityOf } from '../core/money.js';
import type { RateLimitExtensions } from '../extensions/rate-limit-extensions.js';
import { compileConditions } from './conditions.js';
import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';
import { gcraWarm } from '../core/kinds/gcra-warm.js';
import { parseDuration } from '../core/rate-parse.js';
import { kindOfAlgorithm } from '../core/rule-kinds.js';
import { compileFailQueue } from '../settings/fail-queue.validate.js';
import type { CompiledPolicy } from './compiled.types.js';
import { penaltyOf, rateOf, stageOf } from './rule-parts.js';

// The compiled shapes and the per-rule parts live beside this file; re-exported for the many callers.
export type { CompiledPolicy, CompiledRule } from './compiled.types.js';
export { penaltyOf } from './rule-parts.js';

/**
 * Turns a validated slice into rules with numbers (cached per slice object by the caller); the
 * products' cost function and extractors are looked up here, once per slice, never per request.
 */
export function compileSlice(
  slice: RateLimitSlice,
  policyName: string,
  extensions: Pick<RateLimitExtensions, 'cost' | 'subject' | 'attribute' | 'claim'> &
    Partial<Pick<RateLimitExtensions, 'tokens' | 'scale'>>,
): CompiledPolicy {
  const claim = slice.claim === undefined ? undefined : extensions.claim(slice.claim);
  return {
    policyName,
    failMode: slice.failMode ?? 'local',
    failQueue: compileFailQueue(slice.failQueue),
    // A name is registered (validation admits no other); 1 only if a slice skipped validation.
    cost: typeof slice.cost === 'string' ? (extensions.cost(slice.cost) ?? 1) : (slice.cost ?? 1),
    tiers: slice.tiers ?? {},
    degrade: slice.degrade,
    headers: slice.headers ?? true,
    claim: claim && { name: slice.claim!, fn: claim },
    flag: slice.onLimit === 'flag',
    rank: slice.degradeRank ?? 0,
    critical: slice.criticalWhen && compileConditions({ when: slice.criticalWhen }, extensions),
    tokens: slice.tokens === undefined ? undefined : extensions.tokens?.(slice.tokens),
    rules: (slice.rules ?? []).map((r) => ({
      name: r.name,
      id: `${policyName}.${r.name}`,
      dimension: r.dimension,
      kind: r.warmUp === undefined ? kindOfAlgorithm(r.algorithm).code : gcraWarm.code,
      capacity: capacityOf(r),
      ...rateOf(r),
      ...stageOf(r),
      cost: r.cost,
      action: r.action ?? `${policyName}.${r.name}`,
      scope: r.scope ?? 'service',
      penalty:
        r.penalty &&
        penaltyOf(
          r.penalty.threshold,
          r.penalty.factor,
          parseDuration(r.penalty.decay)! * 1000,
          r.penalty.floor ?? 0.1,
        ),
      tiered: r.dimension === 'app' || r.dimension === 'user',
      extract: extensions.subject(r.dimension),
      scale: extensions.scale?.(r.dimension),
      conditions: compileConditions(r, extensions),
      rank: r.degradeRank ?? slice.degradeRank ?? 0,
      risk: r.risk !== false,
      maxWaitUs: r.maxWaitMs ? r.maxWaitMs * 1000 : undefined,
      warmUpUs: r.warmUp === undefined ? undefined : parseDuration(r.warmUp)! * 1000,
    })),
  };
}

import type { BucketSpec } from '../core/decision.types.js';
import { isSettledLater } from '../core/rule-kinds.js';
import type { SubjectContext } from '../extensions/rate-limit-extensions.js';
import type { CompiledPolicy, CompiledRule } from '../rules/compile-policy.js';
import { type BucketMeta, buildBuckets, requestCost } from '../rules/request-buckets.js';
import type { Lane } from '../store/lanes/store-lanes.js';
import type { SubjectResolver } from '../subjects/subject-resolver.js';

const ruleSets = new WeakMap<CompiledPolicy, CompiledRule[]>();

/**
 * The rules of a policy that apply to every request of an address alike, known before the body and the
 * signature: per-address (`ip`), enforced for every subject (not shadow, not staged), without conditions or
 * a product's scale, neither leased nor reconciled (their refusals are never cached) nor paced (a paced
 * rule holds instead of refusing); and only when the policy's cost is a number (a cost function may read
 * the body). Compiled once per policy object.
 */
function addressRules(policy: CompiledPolicy): CompiledRule[] {
  let rules = ruleSets.get(policy);
  if (rules === undefined) {
    rules =
      typeof policy.cost !== 'number'
        ? []
        : policy.rules.filter(
            (r) =>
              r.dimension === 'ip' &&
              !r.shadow &&
              r.stage === undefined &&
              r.conditions === undefined &&
              r.scale === undefined &&
              r.maxWaitUs === undefined &&
              !isSettledLater(r),
          );
    ruleSets.set(policy, rules);
  }
  return rules;
}

/** The request's per-address buckets as the limiter would build them (undefined: none, or no address). */
export function addressBuckets(
  policy: CompiledPolicy,
  ctx: SubjectContext,
  subjects: SubjectResolver,
  lane: Lane,
  tag: string,
): { buckets: BucketSpec[]; meta: BucketMeta[] } | undefined {
  const rules = addressRules(policy);
  if (rules.length === 0) return undefined;
  const subject = subjects.resolve('ip', ctx, undefined);
  if (subject === undefined) return undefined;
  return buildBuckets(
    policy,
    rules.map((rule) => ({ rule, subject })),
    {
      tag,
      hasher: lane.hasher,
      cost: requestCost(policy, ctx),
      scale: lane.scale,
      critical: false,
    },
  );
}

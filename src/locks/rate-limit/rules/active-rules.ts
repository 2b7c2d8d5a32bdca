import type { LockContext } from '../../../chain/lock.types.js';
import type { Subject } from '../extensions/rate-limit-extensions.js';
import { AttributeValues } from './conditions.js';
import type { CompiledPolicy, CompiledRule } from './compile-policy.js';
import type { SubjectResolver } from '../subjects/subject-resolver.js';

/** A rule that applies to this request, with its subject. */
export interface ActiveRule {
  rule: CompiledRule;
  subject: Subject;
  /** The product's scale of the rule's dimension for this request (absent: 1). */
  scale?: number;
}

/** Tokens the request costs: the route's `state.cost`, else the policy's number or cost function. Integer ≥ 1. */
export function requestCost(
  policy: CompiledPolicy,
  ctx: Pick<LockContext, 'req' | 'state'>,
): number {
  const c =
    ctx.state.cost ?? (typeof policy.cost === 'number' ? policy.cost : policy.cost(ctx.req));
  return Number.isFinite(c) && c >= 1 ? Math.ceil(c) : 1;
}

/** The rules of a policy that apply to this request; the others are reported through `skip`. */
export function activeRules(
  policy: CompiledPolicy,
  ctx: Pick<LockContext, 'req' | 'state' | 'route' | 'policy'>,
  subjects: SubjectResolver,
  skip: (rule: CompiledRule, policyName: string) => void,
): ActiveRule[] {
  const out: ActiveRule[] = [];
  let attrs: AttributeValues | undefined;
  for (const rule of policy.rules) {
    // A rule its conditions leave out does not apply: not a missing subject, not counted as skipped.
    if (rule.conditions && !(attrs ??= new AttributeValues(ctx)).applies(rule.conditions)) continue;
    // Critical routes (admin, health, webhooks) are exempt from global shedding.
    const subject =
      rule.dimension === 'global' && ctx.policy.critical
        ? undefined
        : subjects.resolve(rule.dimension, ctx, rule.extract);
    if (subject === undefined) skip(rule, policy.policyName);
    else if (rule.scale === undefined) out.push({ rule, subject });
    else out.push({ rule, subject, scale: scaleOf(rule.scale(ctx, subject)) });
  }
  return out;
}

/** A product's scale as a multiplier: not finite or ≤ 0 is 1. */
function scaleOf(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 1;
}

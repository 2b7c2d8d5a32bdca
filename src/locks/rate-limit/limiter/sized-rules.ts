import type { CompiledPolicy, CompiledRule } from '../rules/compile-policy.js';
import { type ActiveRule, spendApplies, type TokenAsk } from '../rules/request-buckets.js';

/**
 * The active rules a request can be decided on: a request without a size (no token counter answer) has no
 * tokens rules, skipped as without a subject; one whose model has no price has no spend rules.
 */
export function sizedRules(
  active: ActiveRule[],
  policy: CompiledPolicy,
  onSkip: (r: CompiledRule, policy: string) => void,
  ask?: TokenAsk,
): ActiveRule[] {
  if (!active.some((a) => a.rule.tokens && !(ask && spendApplies(a.rule, ask)))) return active;
  return active.filter((a) => {
    const keep = !a.rule.tokens || (ask !== undefined && spendApplies(a.rule, ask));
    if (!keep) onSkip(a.rule, policy.policyName);
    return keep;
  });
}

import { effectiveMode } from '../../chain/lock-chain.service.js';
import type { LockMode, PolicySet, RoutePolicy } from '../../config/policy.types.js';

/** The policy set as the admin API shows it. */
export interface PolicySetView {
  version: number;
  updatedAt: string;
  policies: Record<string, RoutePolicy>;
  /** Mode in force right now per policy and lock (time-boxed overrides applied; expired ones ignored). */
  effective: Record<string, Record<string, LockMode>>;
}

export function policySetView(set: PolicySet, now = Date.now()): PolicySetView {
  const effective: Record<string, Record<string, LockMode>> = {};
  for (const [name, policy] of Object.entries(set.policies)) {
    effective[name] = Object.fromEntries(
      Object.entries(policy.locks).map(([lock, slice]) => [lock, effectiveMode(slice, now)]),
    );
  }
  return { version: set.version, updatedAt: set.updatedAt, policies: set.policies, effective };
}

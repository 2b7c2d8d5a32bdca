import type { LockContext } from '../../../chain/lock.types.js';
import { AttributeValues } from '../rules/conditions.js';
import type { CompiledPolicy } from '../rules/compile-policy.js';
import type { LoadLevel, LoadSettings } from '../core/load.types.js';

/** What the load level does to one request: refuse it, or scale its ranked rules (undefined: nothing). */
export type LoadGate = { shed: true } | { shed: false; load?: { factor: number; from: number } };

const OPEN: LoadGate = { shed: false };

/**
 * The degrade order applied to one request: critical requests (a critical
 * policy, or `criticalWhen` matching) are exempt; at `hard` every other one
 * is shed; at `soft` a policy ranked `cacheFrom` and up is answered from the
 * shield's caches (`state.degraded`, stale allowed) and its rules ranked
 * `reduceFrom` and up get `softFactor` of their quota.
 */
export function loadGate(
  ctx: LockContext,
  policy: CompiledPolicy,
  level: LoadLevel,
  s: LoadSettings,
): LoadGate {
  if (level === 'normal' || ctx.policy.critical === true) return OPEN;
  if (policy.critical && new AttributeValues(ctx).applies(policy.critical)) return OPEN;
  if (level === 'hard') return { shed: true };
  if (policy.rank >= s.cacheFrom) ctx.state.degraded = true;
  return { shed: false, load: { factor: s.softFactor, from: s.reduceFrom } };
}

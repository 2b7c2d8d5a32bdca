import type { LockMode, LockSlice } from '../config/policy.types.js';
import type { BaseLockContext } from './lock-context.js';
import type { LockContext } from './lock.types.js';

type Mode = Exclude<LockMode, 'off'>;

/** One lock's context: the request's base context with the lock's mode (one fixed shape). */
export function withMode(base: BaseLockContext, mode: Mode): LockContext {
  return {
    req: base.req,
    reply: base.reply,
    state: base.state,
    policyName: base.policyName,
    policy: base.policy,
    route: base.route,
    mode,
  };
}

/** The mode in force now: a time-boxed override wins until it expires. */
export function effectiveMode(slice: LockSlice, now: number): LockMode {
  const o = slice.override as { mode?: LockMode; until?: number } | undefined;
  if (o && o.mode !== undefined && (o.until === undefined || now < o.until)) return o.mode;
  return slice.mode;
}

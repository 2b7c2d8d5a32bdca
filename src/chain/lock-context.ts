import type { ExecutionContext } from '@nestjs/common';
import { AnyReply, AnyRequest, requestState } from '../http/http-context.js';
import type { RoutePolicy } from '../config/policy.types.js';
import type { LockContext } from './lock.types.js';

/** A lock context without its per-lock mode: what the guard and the interceptor hand the chain. */
export type BaseLockContext = Omit<LockContext, 'mode'>;

/** Builds the lock context of one request (the one function the guard and the interceptor share). */
export function lockContext(
  ctx: ExecutionContext,
  policyName: string,
  policy: RoutePolicy,
): BaseLockContext {
  const http = ctx.switchToHttp();
  const req = http.getRequest<AnyRequest>();
  const state = requestState(req);
  return {
    req,
    reply: http.getResponse<AnyReply>(),
    state,
    policyName,
    policy,
    route: state.route ?? '',
  };
}

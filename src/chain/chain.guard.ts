import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '../common/problem.exception.js';
import { AnyRequest, requestState } from '../http/http-context.js';
import { LockChain } from './lock-chain.service.js';
import { lockContext } from './lock-context.js';
import { PROTECT_POLICY } from './protect.metadata.js';
import { RouteRegistry } from './route-registry.service.js';

/** Runs the guard-stage locks (signature, rate limit) of the route's policy. */
@Injectable()
export class ChainGuard implements CanActivate {
  constructor(
    private readonly chain: LockChain,
    private readonly reflector: Reflector,
    private readonly routes: RouteRegistry,
  ) {}

  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    const policyName = this.reflector.getAllAndOverride<string>(PROTECT_POLICY, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);
    const compiled = this.chain.compile(policyName);
    if (!compiled)
      throw ProblemException.fast(503, 'policy_missing', 'Route policy is not configured');
    const state = requestState(ctx.switchToHttp().getRequest<AnyRequest>());
    state.policy = policyName;
    state.route = this.routes.forHandler(ctx.getHandler())?.template;
    if (compiled.guards.length === 0) return true;
    const base = lockContext(ctx, policyName, compiled.policy);
    return this.chain.runGuards(base, compiled.guards).then(() => true);
  }
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '../common/problem.exception.js';
import { AnyRequest, requestState } from '../http/http-context.js';
import { LockChain } from './lock-chain.service.js';
import { lockContext } from './lock-context.js';
import { PROTECT_POLICY, PROTECT_VARIANT } from './protect.metadata.js';
import { RouteRegistry } from './route-registry.service.js';

/** What the guard reads of a route once (metadata never changes after boot). */
interface RouteMeta {
  policy: string;
  variant: string | undefined;
  template: string | undefined;
}

const allow = (): boolean => true;

/** Runs the guard-stage locks (signature, rate limit) of the route's policy. */
@Injectable()
export class ChainGuard implements CanActivate {
  private readonly meta = new WeakMap<object, RouteMeta>();

  constructor(
    private readonly chain: LockChain,
    private readonly reflector: Reflector,
    private readonly routes: RouteRegistry,
  ) {}

  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    const handler = ctx.getHandler();
    let m = this.meta.get(handler);
    if (m === undefined) this.meta.set(handler, (m = this.read(ctx)));
    const req = ctx.switchToHttp().getRequest<AnyRequest>();
    const policyName = m.variant === undefined ? m.policy : this.variant(m.policy, req, m.variant);
    const compiled = this.chain.compile(policyName);
    if (!compiled)
      throw ProblemException.fast(503, 'policy_missing', 'Route policy is not configured');
    const state = requestState(req);
    state.policy = policyName;
    state.route = m.template;
    if (compiled.guards.length === 0) return true;
    const base = lockContext(ctx, policyName, compiled.policy);
    const ran = this.chain.runGuards(base, compiled.guards);
    if (ran === undefined) return true;
    // Thrown here, right below Nest's guard runner: a throw costs more the more frames it unwinds.
    if (ran instanceof ProblemException) throw ran;
    return ran.then(allow);
  }

  private read(ctx: ExecutionContext): RouteMeta {
    const targets = [ctx.getHandler(), ctx.getClass()];
    return {
      policy: this.reflector.getAllAndOverride<string>(PROTECT_POLICY, targets),
      variant: this.reflector.getAllAndOverride<string | undefined>(PROTECT_VARIANT, targets),
      template: this.routes.forHandler(ctx.getHandler())?.template,
    };
  }

  /** `<policy>-<param value>` when such a policy exists, else the route's own policy. */
  private variant(policy: string, req: AnyRequest, param: string): string {
    const value = req.params?.[param];
    if (typeof value !== 'string' || value === '') return policy;
    const name = `${policy}-${value}`;
    return Object.hasOwn(this.chain.current().policies, name) ? name : policy;
  }
}

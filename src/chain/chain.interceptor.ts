import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, from, lastValueFrom } from 'rxjs';
import { AnyRequest, requestState } from '../http/http-context.js';
import { LockChain } from './lock-chain.service.js';
import { lockContext } from './lock-context.js';

/** Runs the interceptor-stage locks (cache shield, circuit breaker) of the route's policy around the handler. */
@Injectable()
export class ChainInterceptor implements NestInterceptor {
  constructor(private readonly chain: LockChain) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const policyName = requestState(ctx.switchToHttp().getRequest<AnyRequest>()).policy ?? '';
    const compiled = this.chain.compile(policyName);
    if (!compiled || compiled.interceptors.length === 0) {
      const state = requestState(ctx.switchToHttp().getRequest<AnyRequest>());
      if (state.overQuota) throw state.overQuota;
      return next.handle();
    }
    const base = lockContext(ctx, policyName, compiled.policy);
    return from(
      this.chain.runInterceptors(base, compiled.interceptors, () =>
        lastValueFrom(next.handle(), { defaultValue: undefined }),
      ),
    );
  }
}

import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, from, lastValueFrom } from 'rxjs';
import { AnyReply, AnyRequest, requestState } from '../http/http-context.js';
import { LockChain } from './lock-chain.service.js';

/** Runs the interceptor-stage locks (cache shield, circuit breaker) of the route's policy around the handler. */
@Injectable()
export class ChainInterceptor implements NestInterceptor {
  constructor(private readonly chain: LockChain) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = ctx.switchToHttp();
    const req = http.getRequest<AnyRequest>();
    const state = requestState(req);
    const policyName = state.policy ?? '';
    const compiled = this.chain.compile(policyName);
    if (!compiled || compiled.interceptors.length === 0) return next.handle();
    const base = {
      req,
      reply: http.getResponse<AnyReply>(),
      state,
      policyName,
      policy: compiled.policy,
      route: state.route ?? '',
    };
    return from(
      this.chain.runInterceptors(base, compiled.interceptors, () =>
        lastValueFrom(next.handle(), { defaultValue: undefined }),
      ),
    );
  }
}

import { SetMetadata, UseGuards, UseInterceptors, applyDecorators } from '@nestjs/common';
import { ChainGuard } from './chain.guard.js';
import { ChainInterceptor } from './chain.interceptor.js';
import { PROTECT_POLICY } from './protect.metadata.js';

/**
 * Puts a route (or every route of a controller) behind the lock chain, with
 * the named route policy deciding which locks run and how:
 * `@Protect('search')`.
 */
export function Protect(policy: string): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(PROTECT_POLICY, policy),
    UseGuards(ChainGuard),
    UseInterceptors(ChainInterceptor),
  );
}

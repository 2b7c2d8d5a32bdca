import { SetMetadata, UseGuards, UseInterceptors, applyDecorators } from '@nestjs/common';
import { ChainGuard } from './chain.guard.js';
import { ChainInterceptor } from './chain.interceptor.js';
import { PROTECT_POLICY, PROTECT_VARIANT } from './protect.metadata.js';

export interface ProtectOptions {
  /**
   * A route parameter that picks a variant of the policy: a request with `:<param>` = `x`
   * runs under policy `<policy>-x` when that policy exists, else under `<policy>` (e.g.
   * one policy per bot, with its own fail mode and breaker).
   */
  variantParam?: string;
}

/**
 * Puts a route (or every route of a controller) behind the lock chain, with
 * the named route policy deciding which locks run and how:
 * `@Protect('search')`.
 */
export function Protect(
  policy: string,
  options: ProtectOptions = {},
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(PROTECT_POLICY, policy),
    SetMetadata(PROTECT_VARIANT, options.variantParam),
    UseGuards(ChainGuard),
    UseInterceptors(ChainInterceptor),
  );
}

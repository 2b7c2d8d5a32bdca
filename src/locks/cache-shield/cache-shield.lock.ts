import { Injectable } from '@nestjs/common';
import type { InterceptorLock, LockContext } from '../../chain/lock.types.js';
import type { LockSlice } from '../../config/policy.types.js';
import { ShieldService } from './cache-shield.service.js';
import type { CacheShieldSlice, ShieldRoute } from './cache-shield.types.js';
import { compileSlice, validateSlice } from './cache-shield.validate.js';

/** Lock 3 as the chain sees it: compiles its slice once per policy version and hands the request to the shield. */
@Injectable()
export class CacheShieldLock implements InterceptorLock<CacheShieldSlice> {
  readonly name = 'cacheShield' as const;
  readonly stage = 'interceptor' as const;
  // Slices are replaced (not mutated) on every policy change, so identity is a safe cache key.
  private readonly compiled = new WeakMap<LockSlice, ShieldRoute>();

  constructor(private readonly shield: ShieldService) {}

  validateSlice(slice: LockSlice, path: string): string[] {
    return validateSlice(slice, path);
  }

  around(
    ctx: LockContext,
    slice: CacheShieldSlice,
    next: () => Promise<unknown>,
  ): Promise<unknown> {
    let route = this.compiled.get(slice);
    if (!route) this.compiled.set(slice, (route = compileSlice(slice)));
    return this.shield.around(ctx, route, next);
  }
}

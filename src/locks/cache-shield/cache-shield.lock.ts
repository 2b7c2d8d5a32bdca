import { Injectable } from '@nestjs/common';
import type { InterceptorLock, LockContext, Next } from '../../chain/lock.types.js';
import type { LockSlice } from '../../config/policy.types.js';
import { CacheShieldRegistry } from './cache-shield.registry.js';
import type { CacheShieldSlice, ShieldRoute } from './cache-shield.types.js';
import { compileSlice, validateSlice } from './cache-shield.validate.js';
import { ShieldService } from './request/shield.service.js';

/**
 * Lock 3 as the chain sees it: compiles its slice once per policy version
 * (resolving the key source it names) and hands the request to the shield.
 */
@Injectable()
export class CacheShieldLock implements InterceptorLock<CacheShieldSlice> {
  readonly name = 'cacheShield' as const;
  readonly stage = 'interceptor' as const;
  // Slices are replaced (not mutated) on every policy change, so identity is a safe cache key.
  private readonly compiled = new WeakMap<LockSlice, ShieldRoute>();

  constructor(
    private readonly shield: ShieldService,
    private readonly registry: CacheShieldRegistry,
  ) {}

  /** Runs at boot, once every product registered its key sources, and on every admin change. */
  validateSlice(slice: LockSlice, path: string): string[] {
    return validateSlice(slice, path, [...this.registry.keySources.keys()]);
  }

  around(ctx: LockContext, slice: CacheShieldSlice, next: Next): Promise<unknown> {
    let route = this.compiled.get(slice);
    if (!route) this.compiled.set(slice, (route = compileSlice(slice, this.registry.keySources)));
    return this.shield.around(ctx, route, next);
  }
}

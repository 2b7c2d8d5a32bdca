import { Injectable } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import type { DecideRequest } from '../core/decision.types.js';
import { RateLimitExtensions } from '../extensions/rate-limit-extensions.js';
import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';
import { claimUsable } from '../rate-limit.validate-extensions.js';
import { CompiledPolicy, compileSlice } from '../rules/compile-policy.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';

/**
 * Each slice compiled once (per slice object: a policy change brings new
 * objects), with the products' functions looked up then; and a request's
 * claim key, `rl:{<env>:<service>}:claim:<name>:<id>`.
 */
@Injectable()
export class CompiledPolicies {
  private readonly compiled = new WeakMap<RateLimitSlice, CompiledPolicy>();

  constructor(
    private readonly extensions: RateLimitExtensions,
    private readonly lanes: StoreLanes,
  ) {}

  of(slice: RateLimitSlice, policyName: string): CompiledPolicy {
    let policy = this.compiled.get(slice);
    if (!policy)
      this.compiled.set(slice, (policy = compileSlice(slice, policyName, this.extensions)));
    return policy;
  }

  /** The request's claim key and TTL (none when the product gives none it can use). */
  claimOf(
    c: NonNullable<CompiledPolicy['claim']>,
    ctx: LockContext,
  ): DecideRequest['claim'] | undefined {
    const got = c.fn(ctx);
    return claimUsable(got)
      ? { key: `rl:${this.lanes.tag}:claim:${c.name}:${got!.id}`, ttlMs: got!.ttlMs }
      : undefined;
  }
}

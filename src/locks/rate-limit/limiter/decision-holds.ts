import { Injectable } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import type { BucketSpec, Decision } from '../core/decision.types.js';
import type { ActiveRule, TokenAsk } from '../rules/request-buckets.js';
import type { Lane } from '../store/lanes/store-lanes.js';
import { RateLimitLeases, leaseOf } from './rate-limit-leases.js';
import { reservationsOf } from './reserved-tokens.js';
import { TokenReservations } from './token-reservations.js';

/** What a decision leaves held until the request ends: a concurrency lease, token reservations. */
@Injectable()
export class DecisionHolds {
  constructor(
    private readonly leases: RateLimitLeases,
    private readonly reservations: TokenReservations,
  ) {}

  /** After a store decision (`tag`: the keys' hash tag): holds the request's lease and its reserved tokens (given back when it ends). */
  hold(
    ctx: LockContext,
    policy: string,
    lane: Lane,
    tag: string,
    buckets: BucketSpec[],
    active: ActiveRule[],
    d: Decision,
    ask?: TokenAsk,
  ): void {
    const lease = leaseOf(buckets, d);
    if (lease) this.leases.hold(ctx, policy, lane.store, lease);
    // Every sized request that was let through settles, with or without tokens rules: its usage is recorded then.
    if (ask && d.allowed && !d.duplicate) {
      const reserved = reservationsOf(buckets, active, d);
      this.reservations.hold(ctx, policy, { ...lane, tag }, ask, reserved);
    }
  }
}

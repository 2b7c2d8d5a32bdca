import { Injectable } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import type { DecideRequest } from '../core/decision.types.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { FailMode } from '../core/rate-limit-slice.types.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import type { CompiledPolicy } from '../rules/compile-policy.js';
import { Lane, StoreLanes } from '../store/lanes/store-lanes.js';
import { RateLimitClaims } from './rate-limit-claims.js';
import { RedisWaitRoom } from './redis-wait-room.js';
import { ALLOWED, Verdict, Verdicts } from './verdicts.js';

/** A claim a decision makes (the policy's own, or another lock's handoff). */
export type Claim = NonNullable<DecideRequest['claim']>;

/**
 * The memory store is full of live state (buckets that have not refilled, unexpired claims) and
 * this request needs new keys: refused with 503 rather than drop state that would hand out a
 * fresh quota early or let a duplicate through (docs/rate-limit.md#memory-bounds).
 */
export function memoryFull(settings: RateLimitSettings): Verdict {
  return { kind: 'unavailable', retryAfterS: settings.closedRetryAfterS };
}

/** What the policy's failMode answers while Redis cannot decide (the RateLimiter's fallback). */
@Injectable()
export class StoreDown {
  constructor(
    private readonly lanes: StoreLanes,
    private readonly verdicts: Verdicts,
    private readonly claims: RateLimitClaims,
    private readonly m: RateLimitMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    private readonly room: RedisWaitRoom,
  ) {}

  /**
   * Redis cannot decide: the policy's failMode does (`queue`: Redis after a bounded wait, else its fallback).
   * `onLane` decides the request on a lane (Redis back after the wait, or the local lane).
   */
  decide(
    ctx: LockContext,
    policy: CompiledPolicy,
    claim: Claim | undefined,
    onLane: (lane: Lane) => Promise<Verdict>,
    mode: FailMode = policy.failMode,
  ): Verdict | Promise<Verdict> {
    this.m.fallbacks.inc({ policy: policy.policyName, mode });
    switch (mode) {
      case 'queue':
        return this.room
          .wait(ctx, policy.policyName, policy.failQueue)
          .then((lane) =>
            lane ? onLane(lane) : this.decide(ctx, policy, claim, onLane, policy.failQueue.then),
          );
      case 'open':
        // Nothing is limited, but a claim still dedups on this instance (the memory store's claims).
        return claim
          ? this.claims.takeLocally(claim).then(
              (dup) => (dup ? this.verdicts.duplicate(policy) : ALLOWED),
              (err: unknown) => {
                if (err instanceof MemoryStoreFullError) return memoryFull(this.settings);
                throw err;
              },
            )
          : ALLOWED;
      case 'closed':
        return { kind: 'unavailable', retryAfterS: this.settings.closedRetryAfterS };
      case 'local':
        return onLane(this.lanes.local());
    }
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { LockContext } from '../../../chain/lock.types.js';
import { onReplyClosed } from '../../../http/http-context.js';
import { type BucketSpec, type Decision, undecided } from '../core/decision.types.js';
import { isLeased } from '../core/rule-kinds.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import type { Lease, RateLimitStore } from '../store/rate-limit.store.js';

/** This process's lease ids start with 72 random bits (base64url): unique across instances. */
const LEASE_PREFIX = randomBytes(9).toString('base64url');
let leaseCount = 0;

/**
 * Gives every leased bucket (concurrency) of a request one lease id: the process's random prefix and a count
 * (never shown to a client; a randomBytes call per request was ~0.9 % of an instance's time under attack).
 */
export function leaseBuckets(buckets: BucketSpec[]): void {
  let id: string | undefined;
  for (const b of buckets)
    if (isLeased(b)) b.leaseId = id ??= `${LEASE_PREFIX}${(++leaseCount).toString(36)}`;
}

/** The leases an allowed decision took (the leased buckets it charged, shadow ones too), or undefined. */
export function leaseOf(buckets: readonly BucketSpec[], d: Decision): Lease | undefined {
  if (!d.allowed || undecided(d)) return undefined;
  const keys = buckets.filter((b, i) => b.leaseId !== undefined && d.buckets[i]!.charged > 0);
  return keys.length === 0 ? undefined : { id: keys[0]!.leaseId!, keys };
}

/**
 * Holds a request's concurrency leases until its answer is over: when the response ends, or its client goes
 * away (an aborted stream), on both adapters, the leases go back to the store that gave them. A release that
 * fails (Redis down) is counted and healed by the lease's own expiry.
 */
@Injectable()
export class RateLimitLeases {
  private readonly logger = new Logger('RateLimitLeases');

  constructor(private readonly m: RateLimitMetrics) {}

  hold(ctx: LockContext, policy: string, store: RateLimitStore, lease: Lease): void {
    onReplyClosed(ctx.reply, () => {
      store.release(lease).catch((err: unknown) => {
        this.m.storeErrors.inc({ policy, kind: 'release' });
        this.logger.warn({ msg: 'lease release failed', policy, err: (err as Error).message });
      });
    });
  }
}

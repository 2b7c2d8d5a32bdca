import { Inject, Injectable } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { CompiledPolicy } from '../rules/compile-policy.js';
import type { BucketMeta } from '../rules/request-buckets.js';
import { allowedVerdict, limitedVerdict } from './verdict-shapes.js';
import { ALLOWED, type Verdict } from './verdict.types.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import type { BucketSpec, Decision } from '../core/decision.types.js';
import { DenyCache } from './deny-cache.js';
import { isSettledLater } from '../core/rule-kinds.js';

export { ALLOWED, type Verdict } from './verdict.types.js';

const DUPLICATE: Verdict = { kind: 'duplicate' };

/**
 * From buckets and a store decision to a verdict: every rule outcome counted,
 * the local deny cache consulted before a Redis decision and taught after it
 * (refusals, and the limit edge an allowed request reached), and the quota
 * the headers show.
 */
@Injectable()
export class Verdicts {
  constructor(
    private readonly denies: DenyCache,
    private readonly m: RateLimitMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A refusal the deny cache still holds for one of the buckets (counted), or undefined: then the
   * refusals it answered locally go to the store with this decision, as penalty strikes.
   */
  cached(
    name: string,
    buckets: BucketSpec[],
    meta: BucketMeta[],
    now: number,
  ): Verdict | undefined {
    const refused = this.refusedLocally(name, buckets, meta, now);
    if (refused) return refused;
    if (this.denies.size > 0) {
      for (const b of buckets) if (b.penalty) b.pendingStrikes = this.denies.takeHits(b.key);
    }
    return undefined;
  }

  /**
   * The deny cache's refusal for one of the buckets (counted, a strike for a penalty rule), or undefined;
   * leaves the strikes of the others where they are (the front door asks before the limiter does).
   */
  refusedLocally(
    name: string,
    buckets: BucketSpec[],
    meta: BucketMeta[],
    now: number,
  ): Extract<Verdict, { kind: 'limited' }> | undefined {
    for (let i = 0; i < buckets.length && this.denies.size > 0; i++) {
      const b = buckets[i]!;
      const hit =
        b.shadow || isSettledLater(b) ? undefined : this.denies.refusing(b.key, b.cost, now);
      if (hit) {
        this.m.denyCacheHits.inc({ policy: name });
        this.m.decision(name, meta[i]!.rule, 'rejected');
        return {
          kind: 'limited',
          quota: {
            name: meta[i]!.id,
            limit: hit.limit,
            windowS: meta[i]!.windowS,
            remaining: 0,
            resetS: hit.retryMs / 1000,
          },
          retryAfterMs: hit.retryMs,
          // Refused locally: the refusal that taught the cache already decided whether to tell.
          notify: false,
        };
      }
    }
    return undefined;
  }

  /** Whether the deny cache holds anything (nothing to ask it otherwise). */
  get refusing(): boolean {
    return this.denies.size > 0;
  }

  /** A duplicate (the claim was taken): counted per policy, as outcome `duplicate` of the claim. */
  duplicate(policy: CompiledPolicy): Verdict {
    this.m.decision(policy.policyName, policy.claim?.name ?? 'claim', 'duplicate');
    return DUPLICATE;
  }

  /** A policy change may change limits: local refusals no longer hold. */
  forgetRefusals(): void {
    this.denies.clear();
  }

  /** The verdict of a store decision; `cache`: teach the deny cache (decisions of the shared store). */
  of(
    ctx: LockContext,
    policy: CompiledPolicy,
    buckets: BucketSpec[],
    meta: BucketMeta[],
    d: Decision,
    cache: boolean,
  ): Verdict {
    const name = policy.policyName;
    if (d.duplicate) return this.duplicate(policy);
    if (d.reentered) {
      // An earlier copy was charged and not finished (its claim kept the charge): allowed, not charged again.
      this.m.decision(name, policy.claim?.name ?? 'claim', 'reentered');
      return ALLOWED;
    }
    d.buckets.forEach((o, i) => {
      const outcome = o.allowed ? 'allowed' : buckets[i]!.shadow ? 'shadow_rejected' : 'rejected';
      this.m.decision(name, meta[i]!.rule, outcome);
    });
    if (d.degraded) {
      ctx.state.degraded = true;
      this.m.degraded.inc({ policy: name });
    }
    // Flag policies learn only from refusals: those decided `notify` in the store (an edge entry would not).
    if (cache) this.learn(buckets, d, !policy.flag);
    return d.allowed ? allowedVerdict(policy, buckets, meta, d) : limitedVerdict(buckets, meta, d);
  }

  /** Remembers the refusing buckets, and (allowed) those at the limit edge until a next request could fit. */
  private learn(buckets: BucketSpec[], d: Decision, edges: boolean): void {
    const now = this.clock.now();
    d.buckets.forEach((o, i) => {
      const b = buckets[i]!;
      // A refused lease or reservation may come back at any moment: never answered from the deny cache.
      if (b.shadow || isSettledLater(b)) return;
      if (!d.allowed) {
        if (!o.allowed && o.retryAfterMs > 0)
          this.denies.add(b.key, now + o.retryAfterMs, b.cost, o.limit, now);
      } else if (o.retryAfterMs > 0 && edges)
        this.denies.add(b.key, now + o.retryAfterMs, b.cost, o.limit, now);
      else if (this.denies.size > 0) this.denies.forget(b.key);
    });
  }
}

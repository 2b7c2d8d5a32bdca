import { Injectable, Logger } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { InjectConfig } from '../../../config/config.module.js';
import type { RampartConfig } from '../../../config/config.types.js';
import { CidrSet } from '../../../http/cidr.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { RedisUnavailableError } from '../../../redis/redis.errors.js';
import { RedisService } from '../../../redis/redis.service.js';
import { CompiledPolicy, CompiledRule, compileSlice } from '../buckets/compile-policy.js';
import { DenyCache } from './deny-cache.js';
import { MemoryRateLimitStore } from '../store/memory-rate-limit.store.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { BucketSpec, Decision, RateLimitStore } from '../store/rate-limit.store.js';
import type { RateLimitSettings, RateLimitSlice } from '../rate-limit.types.js';
import type { QuotaState } from './rate-limit-headers.js';
import { RateLimitPeers } from './rate-limit-peers.service.js';
import { RedisRateLimitStore } from '../store/redis-rate-limit.store.js';
import {
  ActiveRule,
  BucketMeta,
  activeRules,
  buildBuckets,
  quotaOf,
  requestCost,
} from '../buckets/request-buckets.js';
import { KeyHasher, SubjectResolver } from '../subjects/subject-resolver.js';

export type Verdict =
  | { kind: 'allowed'; quota?: QuotaState; degraded: boolean }
  | { kind: 'limited'; quota: QuotaState; retryAfterMs: number }
  | { kind: 'unavailable'; retryAfterS: number };

const ALLOWED: Verdict = { kind: 'allowed', degraded: false };

/**
 * Decides a request against its policy's rules: subjects → keys → local deny
 * cache → ONE store call (Redis, or memory without Redis) → verdict. When
 * Redis fails, the policy's failMode decides; Redis is probed again after
 * `probeAfterMs`, so recovery is automatic and no request waits longer than
 * the Redis command timeout.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimiter');
  private readonly compiled = new WeakMap<RateLimitSlice, CompiledPolicy>();
  private readonly redisStore: RedisRateLimitStore | undefined;
  private readonly memory = new MemoryRateLimitStore();
  private readonly denies: DenyCache;
  private readonly subjects: SubjectResolver;
  private readonly m: RateLimitMetrics;
  private sharedHasher: KeyHasher | undefined;
  private readonly localHasher: KeyHasher;
  private downUntil = 0;

  constructor(
    @InjectConfig() config: RampartConfig,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    private readonly redis: RedisService,
    private readonly peers: RateLimitPeers,
    metrics: MetricsService,
  ) {
    const cluster = config.redis.clusterNodes.length > 0;
    if (redis.enabled) {
      this.redisStore = new RedisRateLimitStore(redis, {
        clock: settings.clock,
        cluster,
        deadlineMs: config.redis.commandTimeoutMs,
        onRefund: (n) => this.m.refunds.inc(n),
      });
    }
    this.denies = new DenyCache(settings.denyCacheSize);
    this.subjects = new SubjectResolver(new CidrSet(config.trustedProxies), settings.userHeader);
    this.localHasher = new KeyHasher(peers.localSecret);
    this.m = new RateLimitMetrics(metrics);
  }

  /** A rule without a subject in this request: counted (one function for all, no closure per request). */
  private readonly onSkip = (r: CompiledRule, policy: string): void =>
    this.m.skipped.inc({ policy, rule: r.name, dimension: r.dimension });

  /** A policy change may change limits: forget local refusals. */
  policiesChanged(): void {
    this.denies.clear();
  }

  async decide(ctx: LockContext, slice: RateLimitSlice): Promise<Verdict> {
    let policy = this.compiled.get(slice);
    if (!policy) this.compiled.set(slice, (policy = compileSlice(slice, ctx.policyName)));
    const name = policy.policyName;
    const active = activeRules(policy, ctx, this.subjects, this.onSkip);
    const critical = ctx.policy.critical === true;
    if (active.length === 0 && (!this.settings.fuse || critical)) return ALLOWED;
    const cost = requestCost(policy, ctx);
    if (!this.redisStore) return this.local(ctx, policy, active, cost, 1, false);
    const hasher = this.shared();
    if (!hasher || !this.redis.ready || Date.now() < this.downUntil)
      return this.onStoreDown(ctx, policy, active, cost);
    const { buckets, meta } = buildBuckets(policy, active, {
      tag: this.redis.tag,
      hasher,
      cost,
      tier: ctx.state.tier,
      scale: 1,
      fuse: this.settings.fuse,
      critical,
    });
    const now = Date.now();
    for (let i = 0; i < buckets.length && this.denies.size > 0; i++) {
      const b = buckets[i]!;
      const hit = b.shadow ? undefined : this.denies.refusing(b.key, b.cost, now);
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
        };
      }
    }
    if (this.denies.size > 0) {
      // Refusals the deny cache answered count as penalty strikes: they reach Redis with this decision.
      for (const b of buckets) if (b.penalty) b.pendingStrikes = this.denies.takeHits(b.key);
    }
    let d: Decision;
    try {
      d = await this.redisStore.decide({
        buckets,
        degradeAt: policy.degrade?.at ?? 0,
        degradeFactor: policy.degrade?.factor ?? 1,
        degradedHint: false,
      });
    } catch (err) {
      const unavailable = err instanceof RedisUnavailableError;
      this.m.storeErrors.inc({ policy: name, kind: unavailable ? 'unavailable' : 'error' });
      if (!unavailable) this.logger.error(`rate-limit store failed: ${(err as Error).message}`);
      this.downUntil = Date.now() + this.settings.probeAfterMs;
      return this.onStoreDown(ctx, policy, active, cost);
    }
    if (this.settings.clock === 'redis') this.m.skew(d.nowMs - now);
    return this.verdict(ctx, policy, buckets, meta, d, true);
  }

  private shared(): KeyHasher | undefined {
    if (!this.sharedHasher && this.peers.sharedSecret)
      this.sharedHasher = new KeyHasher(this.peers.sharedSecret);
    if (!this.sharedHasher) void this.peers.beat();
    return this.sharedHasher;
  }

  private onStoreDown(
    ctx: LockContext,
    policy: CompiledPolicy,
    active: ActiveRule[],
    cost: number,
  ): Promise<Verdict> | Verdict {
    this.m.fallbacks.inc({ policy: policy.policyName, mode: policy.failMode });
    switch (policy.failMode) {
      case 'open':
        return ALLOWED;
      case 'closed':
        return { kind: 'unavailable', retryAfterS: this.settings.closedRetryAfterS };
      case 'local':
        return this.local(
          ctx,
          policy,
          active,
          cost,
          1 / Math.max(1, this.peers.liveInstances),
          false,
        );
    }
  }

  /** In-process decision: the store of a service without Redis, and failMode `local` (at limit ÷ live instances). */
  private async local(
    ctx: LockContext,
    policy: CompiledPolicy,
    active: ActiveRule[],
    cost: number,
    scale: number,
    cache: boolean,
  ): Promise<Verdict> {
    const critical = ctx.policy.critical === true;
    const { buckets, meta } = buildBuckets(policy, active, {
      tag: this.redis.tag,
      hasher: this.localHasher,
      cost,
      tier: ctx.state.tier,
      scale,
      fuse: this.settings.fuse,
      critical,
    });
    const d = await (this.memory as RateLimitStore).decide({
      buckets,
      degradeAt: policy.degrade?.at ?? 0,
      degradeFactor: policy.degrade?.factor ?? 1,
      degradedHint: false,
    });
    return this.verdict(ctx, policy, buckets, meta, d, cache);
  }

  private verdict(
    ctx: LockContext,
    policy: CompiledPolicy,
    buckets: BucketSpec[],
    meta: BucketMeta[],
    d: Decision,
    cache: boolean,
  ): Verdict {
    const name = policy.policyName;
    d.buckets.forEach((o, i) => {
      const outcome = o.allowed ? 'allowed' : buckets[i]!.shadow ? 'shadow_rejected' : 'rejected';
      this.m.decision(name, meta[i]!.rule, outcome);
    });
    if (d.degraded) {
      ctx.state.degraded = true;
      this.m.degraded.inc({ policy: name });
    }
    if (cache && d.allowed) {
      // At the limit edge the bucket already says when the next request could fit: refuse locally until then.
      const now = Date.now();
      d.buckets.forEach((o, i) => {
        const b = buckets[i]!;
        if (b.shadow) return;
        if (o.retryAfterMs > 0) this.denies.add(b.key, now + o.retryAfterMs, b.cost, o.limit);
        else if (this.denies.size > 0) this.denies.forget(b.key);
      });
    }
    if (!d.allowed) {
      const now = Date.now();
      if (cache) {
        d.buckets.forEach((o, i) => {
          const b = buckets[i]!;
          if (!o.allowed && !b.shadow && o.retryAfterMs > 0)
            this.denies.add(b.key, now + o.retryAfterMs, b.cost, o.limit);
        });
      }
      const o = d.buckets[d.blocker]!;
      return {
        kind: 'limited',
        quota: quotaOf(meta[d.blocker]!, { ...o, remaining: 0, resetMs: o.retryAfterMs }),
        retryAfterMs: o.retryAfterMs,
      };
    }
    if (!policy.headers) return { kind: 'allowed', degraded: d.degraded };
    let tight = -1;
    d.buckets.forEach((o, i) => {
      if (buckets[i]!.shadow || meta[i]!.rule === 'fuse') return;
      const t = tight < 0 ? undefined : d.buckets[tight]!;
      if (!t || o.remaining < t.remaining || (o.remaining === t.remaining && o.resetMs > t.resetMs))
        tight = i;
    });
    return {
      kind: 'allowed',
      degraded: d.degraded,
      quota: tight < 0 ? undefined : quotaOf(meta[tight]!, d.buckets[tight]!),
    };
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { ClaimHandoff } from '../../../http/request-state.js';
import { RedisUnavailableError } from '../../../redis/redis.errors.js';
import type { ActiveRule } from '../rules/request-buckets.js';
import { CompiledPolicy, CompiledRule } from '../rules/compile-policy.js';
import { activeRules, buildBuckets, requestCost } from '../rules/request-buckets.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings, RateLimitSlice } from '../rate-limit.types.js';
import { type Decision, type DecideRequest, toldKey } from '../core/decision.types.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { Lane, StoreLanes } from '../store/lanes/store-lanes.js';
import { CompiledPolicies } from './compiled-policies.js';
import { RateLimitClaims } from './rate-limit-claims.js';
import { RateLimitLeases, leaseBuckets, leaseOf } from './rate-limit-leases.js';
import { TokenReservations, reservationsOf } from './token-reservations.js';
import { spendApplies, type TokenAsk } from '../rules/request-buckets.js';
import { LoadGate, loadGate } from '../load/load-gate.js';
import { LoadMonitor } from '../load/load-monitor.service.js';
import { QuotaMetrics } from '../quota.metrics.js';
import { RiskPlanner } from '../risk/risk-planner.js';
import { ALLOWED, Verdict, Verdicts } from './verdicts.js';
import { Pacer } from './pacer.js';
import { pacedVerdict } from './paced-verdict.js';
import { RedisWaitRoom } from './redis-wait-room.js';
import type { FailMode } from '../rate-limit.types.js';

type Claim = NonNullable<DecideRequest['claim']>;
type Load = NonNullable<Extract<LoadGate, { shed: false }>['load']>;

/**
 * Decides a request against its policy's rules: subjects → keys → local deny
 * cache → ONE store call → verdict. One path for every store: the service's
 * store (Redis, or memory without Redis), and when Redis fails the policy's
 * failMode — open, closed, or `local`: the same path on the memory store at
 * limit ÷ live instances. No request waits longer than the Redis command
 * timeout, and recovery is automatic (see StoreLanes).
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly lanes: StoreLanes,
    private readonly policies: CompiledPolicies,
    private readonly verdicts: Verdicts,
    private readonly subjects: SubjectResolver,
    private readonly claims: RateLimitClaims,
    private readonly m: RateLimitMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly risk: RiskPlanner,
    private readonly loadLevel: LoadMonitor,
    private readonly qm: QuotaMetrics,
    private readonly leases: RateLimitLeases,
    private readonly reservations: TokenReservations,
    private readonly pacer: Pacer,
    private readonly room: RedisWaitRoom,
  ) {}

  /** A rule without a subject in this request: counted (one function for all, no closure per request). */
  private readonly onSkip = (r: CompiledRule, policy: string): void =>
    this.m.skipped.inc({ policy, rule: r.name, dimension: r.dimension });

  /** A policy change may change limits: forget local refusals. */
  policiesChanged(): void {
    this.verdicts.forgetRefusals();
  }

  /**
   * True when this decision will make the claim an earlier guard left (`state.claimHandoff`,
   * e.g. the signature lock's nonce) in its own Redis script: the policy has no claim of its
   * own and the decision goes to Redis. Asked by the chain right before `decide`.
   */
  takesHandoff(ctx: LockContext, slice: RateLimitSlice): boolean {
    const h = ctx.state.claimHandoff;
    return (
      h !== undefined &&
      h.result === undefined &&
      !this.policies.of(slice, ctx.policyName).claim &&
      this.lanes.current()?.remote === true
    );
  }

  decide(ctx: LockContext, slice: RateLimitSlice): Verdict | Promise<Verdict> {
    const policy = this.policies.of(slice, ctx.policyName);
    const gate = loadGate(ctx, policy, this.loadLevel.state.level, this.settings.load);
    if (gate.shed) {
      this.qm.shed.inc({ policy: policy.policyName });
      return { kind: 'shed', retryAfterS: this.settings.load.retryAfterS };
    }
    const ask = policy.tokens?.(ctx.req);
    let active = activeRules(policy, ctx, this.subjects, this.onSkip);
    // A request without a size (no token counter answer) has no tokens rules: skipped, as without a subject;
    // one whose model has no price has no spend rules.
    if (active.some((a) => a.rule.tokens && !(ask && spendApplies(a.rule, ask))))
      active = this.withoutTokens(active, policy, ask);
    const handoff = this.takesHandoff(ctx, slice) ? ctx.state.claimHandoff : undefined;
    const claim = policy.claim ? this.policies.claimOf(policy.claim, ctx) : handoff;
    if (active.length === 0 && !claim && (!this.settings.fuse || ctx.policy.critical === true))
      return ALLOWED;
    const cost = requestCost(policy, ctx);
    const lane = this.lanes.current();
    // Another lock's claim in this script: when the store call fails the claim is unknown, so its
    // owner fails closed and nothing is decided locally (as when the owner's own claim had failed).
    if (handoff && lane)
      return this.decideOn(lane, ctx, policy, active, cost, handoff, gate.load, handoff, ask);
    return lane
      ? this.decideOn(lane, ctx, policy, active, cost, claim, gate.load, undefined, ask)
      : this.storeDown(ctx, policy, active, cost, claim, gate.load, ask);
  }

  private withoutTokens(
    active: ActiveRule[],
    policy: CompiledPolicy,
    ask?: TokenAsk,
  ): ActiveRule[] {
    return active.filter((a) => {
      const keep = !a.rule.tokens || (ask !== undefined && spendApplies(a.rule, ask));
      if (!keep) this.onSkip(a.rule, policy.policyName);
      return keep;
    });
  }

  private async decideOn(
    lane: Lane,
    ctx: LockContext,
    policy: CompiledPolicy,
    active: ActiveRule[],
    cost: number,
    claim: Claim | undefined,
    load?: Load,
    handoff?: ClaimHandoff,
    ask?: TokenAsk,
  ): Promise<Verdict> {
    const critical = ctx.policy.critical === true;
    const { buckets, meta } = buildBuckets(policy, active, {
      tag: this.lanes.tag,
      hasher: lane.hasher,
      cost,
      tier: ctx.state.tier,
      scale: lane.scale,
      fuse: this.settings.fuse,
      critical,
      load,
      tokens: ask,
    });
    leaseBuckets(buckets);
    const risk = critical
      ? undefined
      : this.risk.plan(this.lanes.tag, active, buckets, lane.hasher, ctx.state.tier);
    const now = this.clock.now();
    // A request with a claim always asks the store: only it knows a duplicate, and it claims a refused id too.
    if (lane.remote && !claim) {
      const refused = this.verdicts.cached(policy.policyName, buckets, meta, now);
      if (refused) return refused;
    }
    // Paced rules: a place among the held requests first (none left: decided without pacing).
    const place = this.pacer.enter(buckets);
    let d: Decision;
    try {
      d = await lane.store.decide({
        buckets,
        degradeAt: policy.degrade?.at ?? 0,
        degradeFactor: policy.degrade?.factor ?? 1,
        degradedHint: false,
        claim,
        told: policy.flag ? buckets.map(toldKey) : undefined,
        risk,
      });
    } catch (err) {
      this.pacer.leave(place);
      if (err instanceof MemoryStoreFullError) return this.memoryFull();
      if (!lane.remote) throw err;
      this.storeFailed(policy.policyName, err);
      if (handoff) return ((handoff.result = 'unknown'), ALLOWED);
      return this.storeDown(ctx, policy, active, cost, claim, load, ask);
    }
    if (d.risk) this.qm.riskBands.inc({ policy: policy.policyName, multiplier: d.risk.multiplier });
    if (lane.remote && this.settings.clock === 'redis') this.m.skew(d.nowMs - now);
    if (handoff) {
      // Another lock's claim was taken: its owner refuses the request (nothing was charged).
      if (d.duplicate) return ((handoff.result = 'taken'), ALLOWED);
      handoff.result = 'fresh';
    }
    const lease = leaseOf(buckets, d);
    if (lease) this.leases.hold(ctx, policy.policyName, lane.store, lease);
    // Every sized request that was let through settles, with or without tokens rules: its usage is recorded then.
    if (ask && d.allowed && !d.duplicate) {
      const reserved = reservationsOf(buckets, active, d);
      this.reservations.hold(
        ctx,
        policy.policyName,
        { ...lane, tag: this.lanes.tag },
        ask,
        reserved,
      );
    }
    // Decided without pacing for want of a place: the deny cache must not learn those unpaced refusals.
    const v = this.verdicts.of(ctx, policy, buckets, meta, d, lane.remote && place !== 'full');
    return pacedVerdict(this.pacer, place, v, buckets, d, policy.policyName);
  }

  /**
   * The memory store is full of live state (buckets that have not refilled, unexpired claims) and
   * this request needs new keys: refused with 503 rather than drop state that would hand out a
   * fresh quota early or let a duplicate through (docs/rate-limit.md#memory-bounds).
   */
  private memoryFull(): Verdict {
    return { kind: 'unavailable', retryAfterS: this.settings.closedRetryAfterS };
  }

  private storeFailed(policy: string, err: unknown): void {
    const unavailable = err instanceof RedisUnavailableError;
    this.m.storeErrors.inc({ policy, kind: unavailable ? 'unavailable' : 'error' });
    if (!unavailable) this.logger.error(`rate-limit store failed: ${(err as Error).message}`);
    this.lanes.failed();
  }

  /** Redis cannot decide: the policy's failMode does (`queue`: Redis after a bounded wait, else its fallback). */
  private storeDown(
    ctx: LockContext,
    policy: CompiledPolicy,
    active: ActiveRule[],
    cost: number,
    claim: Claim | undefined,
    load: Load | undefined,
    ask?: TokenAsk,
    mode: FailMode = policy.failMode,
  ): Verdict | Promise<Verdict> {
    this.m.fallbacks.inc({ policy: policy.policyName, mode });
    switch (mode) {
      case 'queue':
        return this.room
          .wait(ctx, policy.policyName, policy.failQueue)
          .then((lane) =>
            lane
              ? this.decideOn(lane, ctx, policy, active, cost, claim, load, undefined, ask)
              : this.storeDown(ctx, policy, active, cost, claim, load, ask, policy.failQueue.then),
          );
      case 'open':
        // Nothing is limited, but a claim still dedups on this instance (the memory store's claims).
        return claim
          ? this.claims.takeLocally(claim).then(
              (dup) => (dup ? this.verdicts.duplicate(policy) : ALLOWED),
              (err: unknown) => {
                if (err instanceof MemoryStoreFullError) return this.memoryFull();
                throw err;
              },
            )
          : ALLOWED;
      case 'closed':
        return { kind: 'unavailable', retryAfterS: this.settings.closedRetryAfterS };
      case 'local':
        return this.decideOn(
          this.lanes.local(),
          ctx,
          policy,
          active,
          cost,
          claim,
          load,
          undefined,
          ask,
        );
    }
  }
}

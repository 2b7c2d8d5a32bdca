import { Inject, Injectable, Logger } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { ClaimHandoff } from '../../../http/request-state.js';
import { RedisUnavailableError } from '../../../redis/redis.errors.js';
import { type Decision, toldKey } from '../core/decision.types.js';
import type { LoadGate } from '../load/load-gate.js';
import { QuotaMetrics } from '../quota.metrics.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { RiskPlanner } from '../risk/risk-planner.js';
import type { CompiledPolicy } from '../rules/compile-policy.js';
import { type ActiveRule, buildBuckets, type TokenAsk } from '../rules/request-buckets.js';
import { Lane, StoreLanes } from '../store/lanes/store-lanes.js';
import { DecisionHolds } from './decision-holds.js';
import { pacedVerdict } from './paced-verdict.js';
import { Pacer } from './pacer.js';
import { leaseBuckets } from './rate-limit-leases.js';
import { type Claim, memoryFull } from './store-down.js';
import { ALLOWED, Verdict, Verdicts } from './verdicts.js';

type Load = NonNullable<Extract<LoadGate, { shed: false }>['load']>;

/** A request to decide on a lane: its rules in force, cost, claim and load (RateLimiter.decide found them). */
export interface LaneAsk {
  ctx: LockContext;
  policy: CompiledPolicy;
  active: ActiveRule[];
  cost: number;
  claim: Claim | undefined;
  load?: Load;
  /** Another lock's claim made in this decision (its owner learns the result). */
  handoff?: ClaimHandoff;
  ask?: TokenAsk;
}

/**
 * One decision on one lane: keys → local deny cache → pacing place → ONE store call → verdict. When Redis
 * fails, `storeDown` decides (the policy's failMode), except for another lock's claim: unknown, its owner
 * fails closed.
 */
@Injectable()
export class LaneDecider {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly lanes: StoreLanes,
    private readonly verdicts: Verdicts,
    private readonly m: RateLimitMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly risk: RiskPlanner,
    private readonly qm: QuotaMetrics,
    private readonly holds: DecisionHolds,
    private readonly pacer: Pacer,
  ) {}

  async decide(
    lane: Lane,
    a: LaneAsk,
    storeDown: (a: LaneAsk) => Verdict | Promise<Verdict>,
  ): Promise<Verdict> {
    const { ctx, policy, active, claim, handoff, ask } = a;
    const critical = ctx.policy.critical === true;
    const { buckets, meta } = buildBuckets(policy, active, {
      tag: this.lanes.tag,
      hasher: lane.hasher,
      cost: a.cost,
      tier: ctx.state.tier,
      scale: lane.scale,
      fuse: this.settings.fuse,
      critical,
      load: a.load,
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
    const app = ctx.state.appId ?? '';
    const place = this.pacer.enter(buckets, app);
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
      this.pacer.leave(place, app);
      if (err instanceof MemoryStoreFullError) return memoryFull(this.settings);
      if (!lane.remote) throw err;
      this.storeFailed(policy.policyName, err);
      if (handoff) return ((handoff.result = 'unknown'), ALLOWED);
      return storeDown(a);
    }
    if (d.risk) this.qm.riskBands.inc({ policy: policy.policyName, multiplier: d.risk.multiplier });
    if (lane.remote && this.settings.clock === 'redis') this.m.skew(d.nowMs - now);
    if (handoff) {
      // Another lock's claim was taken: its owner refuses the request (nothing was charged).
      if (d.duplicate) return ((handoff.result = 'taken'), ALLOWED);
      handoff.result = 'fresh';
    }
    this.holds.hold(ctx, policy.policyName, lane, this.lanes.tag, buckets, active, d, ask);
    // Decided without pacing for want of a place: the deny cache must not learn those unpaced refusals.
    const v = this.verdicts.of(ctx, policy, buckets, meta, d, lane.remote && place !== 'full');
    return pacedVerdict(this.pacer, place, v, buckets, d, policy.policyName, app);
  }

  private storeFailed(policy: string, err: unknown): void {
    const unavailable = err instanceof RedisUnavailableError;
    this.m.storeErrors.inc({ policy, kind: unavailable ? 'unavailable' : 'error' });
    if (!unavailable) this.logger.error(`rate-limit store failed: ${(err as Error).message}`);
    this.lanes.failed();
  }
}

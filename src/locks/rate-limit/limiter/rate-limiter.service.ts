import { Injectable } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { loadGate } from '../load/load-gate.js';
import { LoadMonitor } from '../load/load-monitor.service.js';
import { QuotaMetrics } from '../quota.metrics.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';
import type { CompiledRule } from '../rules/compile-policy.js';
import { activeRules, requestCost } from '../rules/request-buckets.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';
import { CompiledPolicies } from './compiled-policies.js';
import { LaneDecider, type LaneAsk } from './lane-decider.js';
import { sizedRules } from './sized-rules.js';
import { StoreDown } from './store-down.js';
import { ALLOWED, Verdict, Verdicts } from './verdicts.js';

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
  constructor(
    private readonly lanes: StoreLanes,
    private readonly policies: CompiledPolicies,
    private readonly verdicts: Verdicts,
    private readonly subjects: SubjectResolver,
    private readonly m: RateLimitMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    private readonly loadLevel: LoadMonitor,
    private readonly qm: QuotaMetrics,
    private readonly decider: LaneDecider,
    private readonly down: StoreDown,
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
    const active = sizedRules(
      activeRules(policy, ctx, this.subjects, this.onSkip),
      policy,
      this.onSkip,
      ask,
    );
    const handoff = this.takesHandoff(ctx, slice) ? ctx.state.claimHandoff : undefined;
    const claim = policy.claim ? this.policies.claimOf(policy.claim, ctx) : handoff;
    if (active.length === 0 && !claim && (!this.settings.fuse || ctx.policy.critical === true))
      return ALLOWED;
    const cost = requestCost(policy, ctx);
    const lane = this.lanes.current();
    // Another lock's claim in this script: when the store call fails the claim is unknown, so its
    // owner fails closed and nothing is decided locally (as when the owner's own claim had failed).
    // One ask per request (the handed-off claim set in it, not a spread copy).
    const a: LaneAsk = {
      ctx,
      policy,
      active,
      cost,
      claim,
      load: gate.load,
      ask,
      handoff: undefined,
    };
    if (handoff && lane) {
      a.claim = a.handoff = handoff;
      return this.decider.decide(lane, a, this.onDown);
    }
    return lane ? this.decider.decide(lane, a, this.onDown) : this.storeDown(a);
  }

  /** The fallback handed to the decider, made once (not a closure per request). */
  private readonly onDown = (a: LaneAsk): Verdict | Promise<Verdict> => this.storeDown(a);

  /** Redis cannot decide: the policy's failMode does (StoreDown), on a lane when it names one. */
  private storeDown(a: LaneAsk): Verdict | Promise<Verdict> {
    return this.down.decide(a.ctx, a.policy, a.claim, (lane) =>
      this.decider.decide(lane, a, this.onDown),
    );
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { LockChain } from '../../../chain/lock-chain.service.js';
import { effectiveMode } from '../../../chain/lock-mode.js';
import { LockStats } from '../../../chain/lock-stats.service.js';
import { RouteRegistry } from '../../../chain/route-registry.service.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { ProblemException } from '../../../common/problem.exception.js';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { type AnyRequest, requestState } from '../../../http/http-context.js';
import { BanCheck } from '../bans/ban-check.js';
import { banProblem } from '../bans/ban.problems.js';
import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';
import type { SubjectContext } from '../extensions/rate-limit-extensions.js';
import { CompiledPolicies } from '../limiter/compiled-policies.js';
import { Verdicts } from '../limiter/verdicts.js';
import { rateLimitProblem } from '../rate-limit.problems.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { addressBuckets } from './address-buckets.js';
import { ShedFirst } from './shed-first.js';
import { StaticRoutes } from './static-routes.js';

/**
 * The rate-limit lock at the front door (common/front-door.ts): before the body is read and before the
 * router, a request to a static route whose policy enforces this lock is refused at once when the lock
 * already knows its answer from memory — its address is under a global ban (403 `banned`), or, for a
 * request without a signature, a per-address bucket of its policy is known empty (the deny cache: 429
 * `rate_limited`); and under its own-health pressure it sheds the classes `load.shedFirst` names (ShedFirst).
 * The answers, headers and counters are the lock's own. What the lock would not know from memory takes the
 * usual way: a parameterised route, a critical policy, `onLimit: flag`, shadow mode; for the deny cache also
 * `onLimit: stale` and the rules that do not apply alike to every request of an address
 * (docs/rate-limit.md#front-door).
 */
@Injectable()
export class RateLimitFrontDoor {
  private routes: StaticRoutes | undefined;

  constructor(
    private readonly chain: LockChain,
    private readonly registry: RouteRegistry,
    private readonly bans: BanCheck,
    private readonly subjects: SubjectResolver,
    private readonly lanes: StoreLanes,
    private readonly policies: CompiledPolicies,
    private readonly verdicts: Verdicts,
    private readonly stats: LockStats,
    private readonly shed: ShedFirst,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The check the front door runs for every request (a bound function: no closure per request). */
  readonly check = (raw: unknown): ProblemException | undefined => {
    const req = raw as AnyRequest;
    // Nothing it could refuse, decided before any lookup: no global address ban, no deny-cache entry that
    // applies (only an unsigned request's), nothing shed now (docs/rate-limit.md#front-door).
    if (
      !this.bans.mayMatchAddress() &&
      !(this.verdicts.refusing && !signed(req)) &&
      !this.shed.shedding()
    )
      return undefined;
    const route = this.staticRoutes()?.find(req.method, req.url);
    if (route === undefined) return undefined;
    const policy: RoutePolicy | undefined = this.chain.current().policies[route.policy];
    const slice = policy?.locks.rateLimit as RateLimitSlice | undefined;
    if (!policy || !slice || policy.critical === true || slice.onLimit === 'flag') return undefined;
    if (effectiveMode(slice, this.clock.now()) !== 'enforce') return undefined;
    const state = requestState(req);
    const ctx: SubjectContext = { req, state, route: route.template };
    const refusal =
      this.banned(ctx, route.policy) ??
      this.limited(ctx, route.policy, slice) ??
      this.shed.refusal(ctx, slice, signed(req), route.policy);
    if (refusal) {
      state.policy = route.policy;
      state.route = route.template;
      this.stats.record('rateLimit', route.policy, 'rejected');
    }
    return refusal;
  };

  private banned(ctx: SubjectContext, policyName: string): ProblemException | undefined {
    const ban = this.bans.matchAddress(ctx);
    if (!ban) return undefined;
    this.bans.count({ policyName }, ban, 'refused');
    return banProblem(ban, this.bans.now());
  }

  /** A request without a signature whose per-address bucket the deny cache holds (as the limiter would find). */
  private limited(
    ctx: SubjectContext,
    policyName: string,
    slice: RateLimitSlice,
  ): ProblemException | undefined {
    if (!this.verdicts.refusing || (slice.onLimit ?? 'reject') !== 'reject') return undefined;
    if (signed(ctx.req)) return undefined; // its nonce is claimed with its decision (docs/rate-limit.md#claims)
    const lane = this.lanes.current();
    if (!lane?.remote) return undefined;
    const policy = this.policies.of(slice, policyName);
    const got = addressBuckets(policy, ctx, this.subjects, lane, this.lanes.tag);
    if (!got) return undefined;
    const v = this.verdicts.refusedLocally(policyName, got.buckets, got.meta, this.clock.now());
    return v && rateLimitProblem(v);
  }

  /** Built on the first request (every route is registered once the app has booted). */
  private staticRoutes(): StaticRoutes | undefined {
    if (this.routes) return this.routes;
    const all = this.registry.routes();
    return all.length > 0 ? (this.routes = new StaticRoutes(all)) : undefined;
  }
}

/** Any header that makes the signature lock verify the request (either scheme). */
function signed(req: AnyRequest): boolean {
  const h = req.headers;
  return (
    h['x-app-id'] !== undefined ||
    h['x-signature'] !== undefined ||
    h['x-key-id'] !== undefined ||
    h['x-nonce'] !== undefined ||
    h['x-timestamp'] !== undefined ||
    h.signature !== undefined ||
    h['signature-input'] !== undefined
  );
}

import { capacityOf } from '../core/money.js';
import type {
  ClaimFunction,
  CostFunction,
  RateLimitExtensions,
  ScaleFunction,
  SubjectExtractor,
  TokenFunction,
} from '../extensions/rate-limit-extensions.js';
import { Conditions, compileConditions } from './conditions.js';
import type { DegradeConfig, FailMode, RateLimitSlice } from '../core/rate-limit-slice.types.js';
import type { Dimension } from '../core/dimensions.js';
import type { RuleConfig } from '../core/rule-config.types.js';
import { DEFAULT_LEASE_MS } from '../core/kinds/concurrency.js';
import { gcraWarm } from '../core/kinds/gcra-warm.js';
import type { TokenCount } from '../core/kinds/tokens.js';
import type { BucketKind, BucketSpec } from '../core/decision.types.js';
import { parseDuration, parseRate } from '../core/rate-parse.js';
import { kindOfAlgorithm } from '../core/rule-kinds.js';
import { type RuleStage, instanceStaged } from '../core/stage.js';
import { type CompiledFailQueue, compileFailQueue } from '../settings/fail-queue.validate.js';

/** A rule ready to decide: parsed, defaults applied. */
export interface CompiledRule {
  name: string;
  /** Name in headers, metrics and problem bodies: `<policy>.<rule>`. */
  id: string;
  dimension: Dimension;
  kind: BucketKind;
  capacity: number;
  /** Tokens per second (leased kinds: capacity ÷ lease, so that capacity ÷ rate is the lease in seconds). */
  rate: number;
  /** Leased kinds (concurrency): how long a lease lives if never given back, µs. */
  leaseUs?: number;
  /** Reconciled kinds (tokens): the window, µs, and which tokens count, one budget per model or not. */
  windowUs?: number;
  tokens?: { count: TokenCount; perModel: boolean };
  shadow: boolean;
  /** Staged enforcement: enforced for this share of subjects only (shadow for the rest); absent when the
   * rule is shadow, unstaged, or this instance is outside the stage's share of instances (then `shadow`). */
  stage?: RuleStage;
  /** Fixed cost of this rule, overriding the request's. */
  cost?: number;
  action: string;
  scope: 'service' | 'subject';
  penalty?: BucketSpec['penalty'];
  /** Tier multipliers apply (app and user dimensions). */
  tiered: boolean;
  /** The product's extractor of this dimension, if one registered (asked when the built-in has no subject). */
  extract?: SubjectExtractor;
  /** The product's scale of this dimension, if one registered: × capacity and rate per request. */
  scale?: ScaleFunction;
  /** `when` / `unless`: the rule applies only to requests whose attributes match. */
  conditions?: Conditions;
  /** Place in the degrade order (the rule's `degradeRank`, else its policy's; default 0). */
  rank: number;
  /** The subject's risk multiplier may scale it (`risk: false` opts out). */
  risk?: boolean;
  /** Paced (`maxWaitMs` > 0): a request that fits within this many µs waits for its slot instead of a 429. */
  maxWaitUs?: number;
  /** Warm-up (`warmUp`, gcra only, compiled to kind 'w'): µs over which a cold bucket's rate rises from a third. */
  warmUpUs?: number;
}

export interface CompiledPolicy {
  policyName: string;
  rules: CompiledRule[];
  failMode: FailMode;
  /** failMode `queue`: the wait bound and the fallback (defaults filled in). */
  failQueue: CompiledFailQueue;
  /** Tokens per request, or the cost function registered under the slice's `cost` name. */
  cost: number | CostFunction;
  tiers: Record<string, number>;
  degrade?: DegradeConfig;
  headers: boolean;
  /** The slice's claim: its name (key part) and the product's function. */
  claim?: { name: string; fn: ClaimFunction };
  /** `onLimit: flag`: never 429; the request goes on with `state.limited`. */
  flag: boolean;
  /** Place in the degrade order (`degradeRank`, default 0). */
  rank: number;
  /** `criticalWhen`: requests it matches are exempt from load shedding. */
  critical?: Conditions;
  /** The slice's token counter (`tokens: <name>`): what a request reserves for its tokens rules. */
  tokens?: TokenFunction;
}

/**
 * Turns a validated slice into rules with numbers (cached per slice object by the caller); the
 * products' cost function and extractors are looked up here, once per slice, never per request.
 */
export function compileSlice(
  slice: RateLimitSlice,
  policyName: string,
  extensions: Pick<RateLimitExtensions, 'cost' | 'subject' | 'attribute' | 'claim'> &
    Partial<Pick<RateLimitExtensions, 'tokens' | 'scale'>>,
): CompiledPolicy {
  const claim = slice.claim === undefined ? undefined : extensions.claim(slice.claim);
  return {
    policyName,
    failMode: slice.failMode ?? 'local',
    failQueue: compileFailQueue(slice.failQueue),
    // A name is registered (validation admits no other); 1 only if a slice skipped validation.
    cost: typeof slice.cost === 'string' ? (extensions.cost(slice.cost) ?? 1) : (slice.cost ?? 1),
    tiers: slice.tiers ?? {},
    degrade: slice.degrade,
    headers: slice.headers ?? true,
    claim: claim && { name: slice.claim!, fn: claim },
    flag: slice.onLimit === 'flag',
    rank: slice.degradeRank ?? 0,
    critical: slice.criticalWhen && compileConditions({ when: slice.criticalWhen }, extensions),
    tokens: slice.tokens === undefined ? undefined : extensions.tokens?.(slice.tokens),
    rules: (slice.rules ?? []).map((r) => ({
      name: r.name,
      id: `${policyName}.${r.name}`,
      dimension: r.dimension,
      kind: r.warmUp === undefined ? kindOfAlgorithm(r.algorithm).code : gcraWarm.code,
      capacity: capacityOf(r),
      ...rateOf(r),
      ...stageOf(r),
      cost: r.cost,
      action: r.action ?? `${policyName}.${r.name}`,
      scope: r.scope ?? 'service',
      penalty:
        r.penalty &&
        penaltyOf(
          r.penalty.threshold,
          r.penalty.factor,
          parseDuration(r.penalty.decay)! * 1000,
          r.penalty.floor ?? 0.1,
        ),
      tiered: r.dimension === 'app' || r.dimension === 'user',
      extract: extensions.subject(r.dimension),
      scale: extensions.scale?.(r.dimension),
      conditions: compileConditions(r, extensions),
      rank: r.degradeRank ?? slice.degradeRank ?? 0,
      risk: r.risk !== false,
      maxWaitUs: r.maxWaitMs ? r.maxWaitMs * 1000 : undefined,
      warmUpUs: r.warmUp === undefined ? undefined : parseDuration(r.warmUp)! * 1000,
    })),
  };
}

/**
 * A rule's refill, or for a leased kind its lease (default DEFAULT_LEASE_MS) and the rate that spans it, or for a
 * reconciled kind (tokens) its window, count and the rate that spans the window.
 */
function rateOf(r: RuleConfig): Pick<CompiledRule, 'rate' | 'leaseUs' | 'windowUs' | 'tokens'> {
  const kind = kindOfAlgorithm(r.algorithm);
  if (kind.reconciled === true) {
    const windowUs = parseDuration(r.window)! * 1000;
    return {
      rate: (capacityOf(r) * 1e6) / windowUs,
      windowUs,
      tokens: {
        count: r.count ?? (r.budget !== undefined ? 'spend' : 'total'),
        perModel: r.perModel === true,
      },
    };
  }
  if (kind.leased !== true) return { rate: parseRate(r.rate)! };
  const leaseUs = (parseDuration(r.lease) ?? DEFAULT_LEASE_MS) * 1000;
  return { rate: (capacityOf(r) * 1e6) / leaseUs, leaseUs };
}

/** Penalty parameters with the strike cap: the strike count at which factor^k reaches the floor. */
export function penaltyOf(
  threshold: number,
  factor: number,
  decayUs: number,
  floor: number,
): NonNullable<BucketSpec['penalty']> {
  const toFloor = floor >= 1 ? 0 : Math.ceil(Math.log(floor) / Math.log(factor) - 1e-9);
  return { threshold, factor, decayUs, floor, maxStrikes: threshold - 1 + Math.max(1, toFloor) };
}

/** A rule's shadow flag and stage: a staged rule on an instance outside its share of instances is shadow here. */
function stageOf(r: RuleConfig): { shadow: boolean; stage?: RuleStage } {
  if (r.mode === 'shadow') return { shadow: true };
  if (!r.stage) return { shadow: false };
  const stage = { subjects: r.stage.subjects ?? 100, instances: r.stage.instances ?? 100 };
  if (!instanceStaged(stage)) return { shadow: true };
  return stage.subjects >= 100 ? { shadow: false } : { shadow: false, stage };
}

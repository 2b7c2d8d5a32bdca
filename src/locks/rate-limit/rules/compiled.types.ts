import type {
  ClaimFunction,
  CostFunction,
  ScaleFunction,
  SubjectExtractor,
  TokenFunction,
} from '../extensions/rate-limit-extensions.js';
import type { Conditions } from './conditions.js';
import type { DegradeConfig, FailMode } from '../core/rate-limit-slice.types.js';
import type { Dimension } from '../core/dimensions.js';
import type { TokenCount } from '../core/kinds/tokens.js';
import type { BucketKind, BucketSpec } from '../core/decision.types.js';
import type { RuleStage } from '../core/stage.js';
import type { CompiledFailQueue } from '../settings/fail-queue.validate.js';

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

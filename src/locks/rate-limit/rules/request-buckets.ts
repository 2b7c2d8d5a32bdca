import type { LockContext } from '../../../chain/lock.types.js';
import { bucketKey } from '../subjects/bucket-keys.js';
import type { Subject } from '../extensions/rate-limit-extensions.js';
import { AttributeValues } from './conditions.js';
import { CompiledPolicy, CompiledRule } from './compile-policy.js';
import { bucketFor, fuseBucket } from './bucket-specs.js';
import type { BucketSpec } from '../core/decision.types.js';
import type { QuotaState } from '../core/rate-limit-headers.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import type { KeyHasher } from '../subjects/key-hasher.js';
import { modelPart, tokensFor, type TokenAsk } from './token-ask.js';
import type { SubjectResolver } from '../subjects/subject-resolver.js';

export { modelPart, spendApplies, tokensFor, type TokenAsk } from './token-ask.js';

/** A rule that applies to this request, with its subject. */
export interface ActiveRule {
  rule: CompiledRule;
  subject: Subject;
  /** The product's scale of the rule's dimension for this request (absent: 1). */
  scale?: number;
}

/** What the request's buckets describe for headers: name and window per bucket. */
export interface BucketMeta {
  id: string;
  rule: string;
  windowS: number;
}

export const FUSE_RULE = 'fuse';

/** Tokens the request costs: the route's `state.cost`, else the policy's number or cost function. Integer ≥ 1. */
export function requestCost(
  policy: CompiledPolicy,
  ctx: Pick<LockContext, 'req' | 'state'>,
): number {
  const c =
    ctx.state.cost ?? (typeof policy.cost === 'number' ? policy.cost : policy.cost(ctx.req));
  return Number.isFinite(c) && c >= 1 ? Math.ceil(c) : 1;
}

/** The rules of a policy that apply to this request; the others are reported through `skip`. */
export function activeRules(
  policy: CompiledPolicy,
  ctx: Pick<LockContext, 'req' | 'state' | 'route' | 'policy'>,
  subjects: SubjectResolver,
  skip: (rule: CompiledRule, policyName: string) => void,
): ActiveRule[] {
  const out: ActiveRule[] = [];
  let attrs: AttributeValues | undefined;
  for (const rule of policy.rules) {
    // A rule its conditions leave out does not apply: not a missing subject, not counted as skipped.
    if (rule.conditions && !(attrs ??= new AttributeValues(ctx)).applies(rule.conditions)) continue;
    // Critical routes (admin, health, webhooks) are exempt from global shedding.
    const subject =
      rule.dimension === 'global' && ctx.policy.critical
        ? undefined
        : subjects.resolve(rule.dimension, ctx, rule.extract);
    if (subject === undefined) skip(rule, policy.policyName);
    else if (rule.scale === undefined) out.push({ rule, subject });
    else out.push({ rule, subject, scale: scaleOf(rule.scale(ctx, subject)) });
  }
  return out;
}

/** A product's scale as a multiplier: not finite or ≤ 0 is 1. */
function scaleOf(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 1;
}

/** The buckets of one request: its rules (× tier where tiered, × `scale`) and the emergency fuse. */
export function buildBuckets(
  policy: CompiledPolicy,
  active: ActiveRule[],
  opts: {
    tag: string;
    hasher: KeyHasher;
    cost: number;
    tier?: string;
    scale: number;
    fuse?: RateLimitSettings['fuse'];
    critical: boolean;
    /** Load level soft: rules ranked `from` and up (not global) × `factor`. */
    load?: { factor: number; from: number };
    /** What the request reserves for its tokens rules (none: the caller left them out). */
    tokens?: TokenAsk;
  },
): { buckets: BucketSpec[]; meta: BucketMeta[] } {
  const tierMult = opts.tier !== undefined ? (policy.tiers[opts.tier] ?? 1) : 1;
  const degrade = policy.degrade !== undefined;
  const load = opts.load;
  const buckets = active.map((a) =>
    bucketFor(
      a.rule,
      tokensKey(a, opts),
      a.rule.tokens && opts.tokens ? tokensFor(a.rule.tokens.count, opts.tokens) : opts.cost,
      opts.scale *
        (a.scale ?? 1) *
        (a.rule.tiered ? tierMult : 1) *
        (load && a.rule.rank >= load.from && a.rule.dimension !== 'global' ? load.factor : 1),
      degrade,
    ),
  );
  const meta = active.map((a) => metaOf(a.rule));
  if (opts.fuse && !opts.critical) {
    buckets.push(
      fuseBucket(
        { key: `rl:${opts.tag}:global:-:${FUSE_RULE}`, group: opts.tag },
        Math.max(1, opts.fuse.limit * opts.scale),
        opts.fuse.windowMs,
      ),
    );
    meta.push({ id: FUSE_RULE, rule: FUSE_RULE, windowS: opts.fuse.windowMs / 1000 });
  }
  return { buckets, meta };
}

/** A rule's bucket key; a `perModel` tokens rule's ends in the model (same hash slot: after the tag). */
function tokensKey(
  a: ActiveRule,
  opts: { tag: string; hasher: KeyHasher; tokens?: TokenAsk },
): { key: string; group: string } {
  const at = bucketKey(opts.tag, a.rule, a.subject, opts.hasher);
  return a.rule.tokens?.perModel
    ? { key: `${at.key}:${modelPart(opts.tokens?.model)}`, group: at.group }
    : at;
}

const metas = new WeakMap<CompiledRule, BucketMeta>();

/** A rule's name and window for the headers (one object per compiled rule). */
function metaOf(rule: CompiledRule): BucketMeta {
  let m = metas.get(rule);
  if (m === undefined)
    metas.set(rule, (m = { id: rule.id, rule: rule.name, windowS: rule.capacity / rule.rate }));
  return m;
}

/** Quota of bucket `i` for the headers. */
export function quotaOf(
  meta: BucketMeta,
  o: { limit: number; remaining: number; resetMs: number },
): QuotaState {
  return {
    name: meta.id,
    limit: o.limit,
    windowS: meta.windowS,
    remaining: o.remaining,
    resetS: o.resetMs / 1000,
  };
}

import { bucketKey } from '../subjects/bucket-keys.js';
import type { ActiveRule } from './active-rules.js';
import type { CompiledPolicy, CompiledRule } from './compile-policy.js';
import { bucketFor, fuseBucket } from './bucket-specs.js';
import type { BucketSpec } from '../core/decision.types.js';
import type { QuotaState } from '../core/rate-limit-headers.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import type { KeyHasher } from '../subjects/key-hasher.js';
import { modelPart, tokensFor, type TokenAsk } from './token-ask.js';

export { type ActiveRule, activeRules, requestCost } from './active-rules.js';
export { modelPart, spendApplies, tokensFor, type TokenAsk } from './token-ask.js';

/** What the request's buckets describe for headers: name and window per bucket. */
export interface BucketMeta {
  id: string;
  rule: string;
  windowS: number;
}

export const FUSE_RULE = 'fuse';

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

import type { ActiveRule } from '../rules/request-buckets.js';
import type { Dimension } from '../core/dimensions.js';
import type { BucketSpec, DecideRequest } from '../core/decision.types.js';
import { subjectId, type KeyHasher } from '../subjects/key-hasher.js';
import { riskKey, riskParams } from '../core/risk-params.js';
import type { RiskParams, RiskSettings } from '../core/risk.types.js';

const CACHE_MAX = 50_000;

/**
 * A subject the request proves (docs/quotas.md#verified-subjects-behind-a-shared-address): anything but an
 * address, and for `user` only a user named by a verified app, session key or bot (a scoped one). An address
 * (`ip`) and the user of an unsigned request's header are unproven: anyone can send from an address or a header.
 */
export function isVerified(dimension: Dimension, subject: ActiveRule['subject']): boolean {
  if (dimension === 'ip') return false;
  return dimension !== 'user' || subject.scope !== undefined;
}

/**
 * The risk part of one decision: the records of the request's scored subjects
 * (the subjects of its rules on `risk.dimensions`) and the parameters of its
 * tier; marks those rules' buckets `risky`. Keys are cached per hasher (floods
 * repeat the same subjects), parameters per tier.
 */
export class RiskPlanner {
  private readonly dims: ReadonlySet<string>;
  private readonly params = new Map<string | undefined, RiskParams>();
  private readonly keys = new WeakMap<KeyHasher, Map<string, string>>();

  constructor(private readonly s: RiskSettings) {
    this.dims = new Set(s.dimensions);
  }

  get enabled(): boolean {
    return this.s.enabled;
  }

  /** `buckets[i]` is the bucket of `active[i]` (the fuse, if any, follows them). Undefined: nothing scored. */
  plan(
    tag: string,
    active: readonly ActiveRule[],
    buckets: BucketSpec[],
    hasher: KeyHasher,
    tier: string | undefined,
  ): DecideRequest['risk'] {
    if (!this.s.enabled) return undefined;
    // Verified subjects' records first, then the unproven ones (the address): requestRisk tells them apart.
    const verified: string[] = [];
    const unproven: string[] = [];
    for (let i = 0; i < active.length; i++) {
      const { rule, subject } = active[i]!;
      if (!this.dims.has(rule.dimension) || rule.risk === false) continue;
      buckets[i]!.risky = true;
      const k = this.key(tag, rule.dimension, subject, hasher);
      const list = isVerified(rule.dimension, subject) ? verified : unproven;
      if (!list.includes(k)) list.push(k);
    }
    if (verified.length + unproven.length === 0) return undefined;
    let params = this.params.get(tier);
    if (!params) this.params.set(tier, (params = riskParams(this.s, tier)));
    if (verified.length === 0) return { keys: unproven, params };
    return { keys: [...verified, ...unproven], params, verified: verified.length };
  }

  /** The record key of a subject (as the admin lookup builds it from an id given in clear). */
  key(
    tag: string,
    dimension: Dimension,
    subject: ActiveRule['subject'],
    hasher: KeyHasher,
  ): string {
    let cache = this.keys.get(hasher);
    if (!cache) this.keys.set(hasher, (cache = new Map()));
    const id = `${dimension}\u0000${subjectId(subject)}`;
    let k = cache.get(id);
    if (k === undefined) {
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(id, (k = riskKey(tag, dimension, hasher.part(dimension, subject))));
    }
    return k;
  }
}

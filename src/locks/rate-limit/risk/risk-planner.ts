import type { ActiveRule } from '../rules/request-buckets.js';
import type { Dimension } from '../rate-limit.types.js';
import type { BucketSpec, DecideRequest } from '../core/decision.types.js';
import { subjectId, type KeyHasher } from '../subjects/key-hasher.js';
import { riskKey, riskParams } from '../core/risk-params.js';
import type { RiskParams, RiskSettings } from '../core/risk.types.js';

const CACHE_MAX = 50_000;

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
    let keys: string[] | undefined;
    for (let i = 0; i < active.length; i++) {
      const { rule, subject } = active[i]!;
      if (!this.dims.has(rule.dimension) || rule.risk === false) continue;
      buckets[i]!.risky = true;
      const k = this.key(tag, rule.dimension, subject, hasher);
      if (!keys) keys = [k];
      else if (!keys.includes(k)) keys.push(k);
    }
    if (!keys) return undefined;
    let params = this.params.get(tier);
    if (!params) this.params.set(tier, (params = riskParams(this.s, tier)));
    return { keys, params };
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

import { fixedWindow } from '../core/kinds/fixed-window.js';
import type { BucketSpec } from '../core/decision.types.js';
import type { CompiledRule } from './compile-policy.js';
import { subjectPlace } from '../core/stage.js';

/**
 * The bucket of one rule for one request: `multiplier` (tier × 1/live
 * instances in failMode local) scales capacity and rate.
 */
export function bucketFor(
  rule: CompiledRule,
  at: { key: string; group: string },
  cost: number,
  multiplier: number,
  degrade: boolean,
): BucketSpec {
  return {
    key: at.key,
    penaltyKey: rule.penalty ? `${at.key}:p` : undefined,
    kind: rule.kind,
    capacity: rule.capacity * multiplier,
    // A lease lives its own time: multipliers scale the count of a leased kind, never its lease.
    // A token budget's window is its own too (aligned to the epoch): multipliers scale its count only.
    intervalUs: rule.leaseUs ?? rule.windowUs ?? 1e6 / (rule.rate * multiplier),
    cost: rule.cost ?? cost,
    // A staged rule enforces for its share of subjects only (core/stage.ts); the rest run as shadow.
    shadow:
      rule.shadow || (rule.stage !== undefined && subjectPlace(at.key) >= rule.stage.subjects),
    soft: degrade && rule.dimension === 'global',
    degradable: degrade && rule.dimension !== 'global',
    penalty: rule.penalty,
    group: at.group,
    maxWaitUs: rule.maxWaitUs,
    warmUpUs: rule.warmUpUs,
  };
}

/** The emergency fuse as a bucket: a fixed window of `limit` requests per `windowMs`. */
export function fuseBucket(
  at: { key: string; group: string },
  limit: number,
  windowMs: number,
): BucketSpec {
  return {
    key: at.key,
    kind: fixedWindow.code,
    capacity: limit,
    intervalUs: windowMs * 1000,
    cost: 1,
    shadow: false,
    soft: false,
    degradable: false,
    group: at.group,
  };
}

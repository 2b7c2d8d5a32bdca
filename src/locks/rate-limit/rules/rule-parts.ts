import { capacityOf } from '../core/money.js';
import type { RuleConfig } from '../core/rule-config.types.js';
import { DEFAULT_LEASE_MS } from '../core/kinds/concurrency.js';
import type { BucketSpec } from '../core/decision.types.js';
import { parseDuration, parseRate } from '../core/rate-parse.js';
import { kindOfAlgorithm } from '../core/rule-kinds.js';
import { type RuleStage, instanceStaged } from '../core/stage.js';
import type { CompiledRule } from './compiled.types.js';

/**
 * A rule's refill, or for a leased kind its lease (default DEFAULT_LEASE_MS) and the rate that spans it, or for a
 * reconciled kind (tokens) its window, count and the rate that spans the window.
 */
export function rateOf(
  r: RuleConfig,
): Pick<CompiledRule, 'rate' | 'leaseUs' | 'windowUs' | 'tokens'> {
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
export function stageOf(r: RuleConfig): { shadow: boolean; stage?: RuleStage } {
  if (r.mode === 'shadow') return { shadow: true };
  if (!r.stage) return { shadow: false };
  const stage = { subjects: r.stage.subjects ?? 100, instances: r.stage.instances ?? 100 };
  if (!instanceStaged(stage)) return { shadow: true };
  return stage.subjects >= 100 ? { shadow: false } : { shadow: false, stage };
}

import { LOCK_MODES } from '../../config/policy.types.js';
import { parseDuration, parseRate } from './core/rate-parse.js';
import { kindOfAlgorithm } from './core/rule-kinds.js';
import { ALGORITHMS, DIMENSIONS, FAIL_MODES } from './rate-limit.types.js';
import { isRecord } from '../../common/is-record.js';
import {
  NO_NAMES,
  RegisteredNames,
  validateConditions,
  validateSliceExtras,
} from './rate-limit.validate-extensions.js';

import { validateLoadOptions } from './settings/load.validate.js';
const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const ACTION = /^[A-Za-z0-9._-]{1,64}$/;
const SLICE_KEYS = new Set([
  'mode',
  'override',
  'failMode',
  'rules',
  'cost',
  'tiers',
  'degrade',
  'headers',
  'claim',
  'onLimit',
  'degradeRank',
  'criticalWhen',
]);
const RULE_KEYS = new Set([
  'name',
  'dimension',
  'algorithm',
  'capacity',
  'rate',
  'mode',
  'cost',
  'action',
  'scope',
  'penalty',
  'when',
  'unless',
  'degradeRank',
  'risk',
]);

export const posInt = (v: unknown): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1;
const fraction = (v: unknown, max: number, inclusive: boolean): boolean =>
  typeof v === 'number' && v > 0 && (inclusive ? v <= max : v < max);

function oneOf(v: unknown, allowed: readonly string[]): boolean {
  return typeof v === 'string' && allowed.includes(v);
}

/** Largest burst of a rule, in tokens: beyond it a limit limits nothing. */
export const MAX_CAPACITY = 1_000_000_000;
/** Fastest refill, in tokens per second (a larger rate switches the limit off in effect). */
export const MAX_RATE = 1_000_000;
/** Slowest refill, in tokens per second (one token in 30 days): keys must expire. */
export const MIN_RATE = 1 / (30 * 86_400);

/** Every problem with one rule (empty = valid). */
function validateRule(rule: unknown, path: string, attributes: readonly string[]): string[] {
  if (!isRecord(rule)) return [`${path}: must be an object {name, dimension, capacity, rate, …}`];
  const p: string[] = [];
  const own = kindOfAlgorithm(rule.algorithm as string | undefined).options ?? [];
  for (const k of Object.keys(rule))
    if (!RULE_KEYS.has(k) && !own.includes(k))
      p.push(`${path}.${k}: unknown option (known: ${[...RULE_KEYS, ...own].join(', ')})`);
  if (typeof rule.name !== 'string' || !NAME.test(rule.name))
    p.push(`${path}.name: must match [a-z0-9][a-z0-9-]* (≤ 40 characters)`);
  if (!oneOf(rule.dimension, DIMENSIONS))
    p.push(`${path}.dimension: must be one of ${DIMENSIONS.join(', ')}`);
  if (rule.algorithm !== undefined && !oneOf(rule.algorithm, ALGORITHMS))
    p.push(`${path}.algorithm: must be one of ${ALGORITHMS.join(', ')}`);
  else
    p.push(...(kindOfAlgorithm(rule.algorithm as string | undefined).validate?.(rule, path) ?? []));
  if (!posInt(rule.capacity) || (rule.capacity as number) > MAX_CAPACITY)
    p.push(`${path}.capacity: must be an integer from 1 to ${MAX_CAPACITY} (burst, in tokens)`);
  const rate = parseRate(rule.rate);
  if (rate === undefined)
    p.push(`${path}.rate: must be tokens per second > 0 or "<n>/<s|min|h|d>" such as "6/min"`);
  else if (rate > MAX_RATE || rate < MIN_RATE)
    p.push(
      `${path}.rate: must lie between 1/${Math.round(1 / MIN_RATE / 86_400)}d and ${MAX_RATE}/s`,
    );
  if (rule.mode !== undefined && !oneOf(rule.mode, ['enforce', 'shadow']))
    p.push(`${path}.mode: must be enforce or shadow`);
  if (rule.cost !== undefined && !posInt(rule.cost)) p.push(`${path}.cost: must be an integer ≥ 1`);
  if (rule.action !== undefined && (typeof rule.action !== 'string' || !ACTION.test(rule.action))) {
    p.push(`${path}.action: must be 1-64 characters of [A-Za-z0-9._-]`);
  }
  if (rule.scope !== undefined && !oneOf(rule.scope, ['service', 'subject']))
    p.push(`${path}.scope: must be service or subject`);
  if (rule.penalty !== undefined) {
    const pen = rule.penalty;
    if (!isRecord(pen))
      p.push(`${path}.penalty: must be an object {threshold, factor, decay, floor?}`);
    else {
      if (!posInt(pen.threshold)) p.push(`${path}.penalty.threshold: must be an integer ≥ 1`);
      if (!fraction(pen.factor, 1, false))
        p.push(`${path}.penalty.factor: must be a number with 0 < factor < 1`);
      if (parseDuration(pen.decay) === undefined)
        p.push(`${path}.penalty.decay: must be milliseconds > 0 or a duration such as "1m"`);
      if (pen.floor !== undefined && !fraction(pen.floor, 1, true))
        p.push(`${path}.penalty.floor: must be a number with 0 < floor ≤ 1`);
    }
  }
  p.push(...validateConditions(rule, path, attributes));
  return p;
}

/**
 * Every problem with a rateLimit slice (empty = valid); `path` is where it sits, for messages.
 * `costNames`: the cost functions the products registered (RateLimitExtensions), the only names
 * a slice's `cost` may take; `names`: the attributes and claims registered (conditions, `claim`).
 */
export function validateSlice(
  slice: unknown,
  path: string,
  costNames: readonly string[],
  names: Omit<RegisteredNames, 'costs'> = NO_NAMES,
): string[] {
  if (!isRecord(slice)) return [`${path}: must be an object`];
  const p: string[] = [];
  for (const k of Object.keys(slice))
    if (!SLICE_KEYS.has(k))
      p.push(`${path}.${k}: unknown option (known: ${[...SLICE_KEYS].join(', ')})`);
  if (!oneOf(slice.mode, LOCK_MODES))
    p.push(`${path}.mode: must be one of ${LOCK_MODES.join(', ')}`);
  if (slice.failMode !== undefined && !oneOf(slice.failMode, FAIL_MODES))
    p.push(`${path}.failMode: must be one of ${FAIL_MODES.join(', ')}`);
  const off = slice.mode === 'off' && slice.override === undefined;
  if (slice.rules === undefined ? !off : !Array.isArray(slice.rules)) {
    p.push(`${path}.rules: must be a list of rules`);
  } else if (Array.isArray(slice.rules)) {
    if (slice.rules.length === 0 && !off)
      p.push(`${path}.rules: needs at least one rule when the lock is on`);
    const seen = new Set<string>();
    slice.rules.forEach((r, i) => {
      p.push(...validateRule(r, `${path}.rules[${i}]`, names.attributes));
      const name = isRecord(r) ? r.name : undefined;
      if (typeof name === 'string') {
        if (seen.has(name)) p.push(`${path}.rules[${i}].name: "${name}" is used twice`);
        seen.add(name);
      }
    });
  }
  if (slice.cost !== undefined && !posInt(slice.cost) && !oneOf(slice.cost, costNames)) {
    p.push(
      costNames.length > 0
        ? `${path}.cost: must be an integer ≥ 1 or one of ${costNames.join(', ')}`
        : `${path}.cost: must be an integer ≥ 1 (no cost function is registered)`,
    );
  }
  if (slice.tiers !== undefined) {
    if (!isRecord(slice.tiers))
      p.push(`${path}.tiers: must map tier names to multipliers, e.g. {free: 1, pro: 5}`);
    else
      for (const [t, m] of Object.entries(slice.tiers))
        if (!(typeof m === 'number' && m > 0 && m <= 1000))
          p.push(`${path}.tiers.${t}: must be a number with 0 < multiplier ≤ 1000`);
  }
  if (slice.degrade !== undefined) {
    const d = slice.degrade;
    if (!isRecord(d)) p.push(`${path}.degrade: must be an object {at, factor}`);
    else {
      if (!fraction(d.at, 1, false))
        p.push(`${path}.degrade.at: must be a fraction with 0 < at < 1`);
      if (!fraction(d.factor, 1, true))
        p.push(`${path}.degrade.factor: must be a number with 0 < factor ≤ 1`);
      const rules = Array.isArray(slice.rules) ? slice.rules : [];
      if (!rules.some((r) => isRecord(r) && r.dimension === 'global'))
        p.push(`${path}.degrade: needs a rule on the global dimension (its soft threshold)`);
    }
  }
  if (slice.headers !== undefined && typeof slice.headers !== 'boolean')
    p.push(`${path}.headers: must be true or false`);
  p.push(...validateSliceExtras(slice, path, names.claims));
  p.push(...validateLoadOptions(slice, path, names.attributes));
  return p;
}

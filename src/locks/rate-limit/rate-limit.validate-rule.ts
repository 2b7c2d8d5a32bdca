import { isRecord } from '../../common/is-record.js';
import { parseRate } from './core/rate-parse.js';
import { ALGORITHMS, kindOfAlgorithm } from './core/rule-kinds.js';
import { DIMENSIONS } from './core/dimensions.js';
import { validateConditions } from './rate-limit.validate-extensions.js';
import {
  validateMaxWait,
  validatePenalty,
  validateStage,
  validateWarmUp,
} from './settings/rule-options.validate.js';
import { oneOf, posInt } from './settings/value-checks.js';

// The shared value checks live in settings/value-checks.ts; re-exported for the other validators.
export { fraction, oneOf, posInt } from './settings/value-checks.js';

const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const ACTION = /^[A-Za-z0-9._-]{1,64}$/;
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
  'maxWaitMs',
  'warmUp',
  'stage',
]);

/** Largest burst of a rule, in tokens: beyond it a limit limits nothing. */
export const MAX_CAPACITY = 1_000_000_000;
/** Fastest refill, in tokens per second (a larger rate switches the limit off in effect). */
export const MAX_RATE = 1_000_000;
/** Slowest refill, in tokens per second (one token in 30 days): keys must expire. */
export const MIN_RATE = 1 / (30 * 86_400);

/** Every problem with one rule (empty = valid). */
export function validateRule(rule: unknown, path: string, attributes: readonly string[]): string[] {
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
  // A spend budget may be given in money (`budget: "$5"`, the tokens kind checks it) instead of a capacity.
  const budgeted = rule.budget !== undefined && rule.capacity === undefined;
  if (!budgeted && (!posInt(rule.capacity) || (rule.capacity as number) > MAX_CAPACITY))
    p.push(`${path}.capacity: must be an integer from 1 to ${MAX_CAPACITY} (burst, in tokens)`);
  const rate = parseRate(rule.rate);
  const kind = kindOfAlgorithm(rule.algorithm as string | undefined);
  const leased = kind.leased === true;
  if (leased) {
    if (rule.rate !== undefined)
      p.push(
        `${path}.rate: a ${String(rule.algorithm)} rule has no rate (capacity = requests in flight)`,
      );
    if (rule.penalty !== undefined)
      p.push(`${path}.penalty: a ${String(rule.algorithm)} rule has no penalty`);
  } else if (kind.reconciled === true) {
    // A reconciled kind (tokens) has a window instead of a rate: its own validate checked it.
  } else if (rate === undefined)
    p.push(`${path}.rate: must be tokens per second > 0 or "<n>/<s|min|h|d>" such as "6/min"`);
  else if (rate > MAX_RATE || rate < MIN_RATE)
    p.push(
      `${path}.rate: must lie between 1/${Math.round(1 / MIN_RATE / 86_400)}d and ${MAX_RATE}/s`,
    );
  if (rule.mode !== undefined && !oneOf(rule.mode, ['enforce', 'shadow']))
    p.push(`${path}.mode: must be enforce or shadow`);
  p.push(...validateStage(rule, path));
  if (rule.cost !== undefined && !posInt(rule.cost)) p.push(`${path}.cost: must be an integer ≥ 1`);
  if (rule.action !== undefined && (typeof rule.action !== 'string' || !ACTION.test(rule.action))) {
    p.push(`${path}.action: must be 1-64 characters of [A-Za-z0-9._-]`);
  }
  if (rule.scope !== undefined && !oneOf(rule.scope, ['service', 'subject']))
    p.push(`${path}.scope: must be service or subject`);
  if (rule.penalty !== undefined) p.push(...validatePenalty(rule.penalty, path));
  if (rule.maxWaitMs !== undefined) p.push(...validateMaxWait(rule, kind, path));
  if (rule.warmUp !== undefined) p.push(...validateWarmUp(rule, path));
  p.push(...validateConditions(rule, path, attributes));
  return p;
}

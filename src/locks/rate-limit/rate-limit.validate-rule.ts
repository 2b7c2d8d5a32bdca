import { isRecord } from '../../common/is-record.js';
import { parseDuration, parseRate } from './core/rate-parse.js';
import { ALGORITHMS, kindOfAlgorithm } from './core/rule-kinds.js';
import { DIMENSIONS } from './core/dimensions.js';
import { validateConditions } from './rate-limit.validate-extensions.js';

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

export const posInt = (v: unknown): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1;
export const fraction = (v: unknown, max: number, inclusive: boolean): boolean =>
  typeof v === 'number' && v > 0 && (inclusive ? v <= max : v < max);

export function oneOf(v: unknown, allowed: readonly string[]): boolean {
  return typeof v === 'string' && allowed.includes(v);
}

/** Largest burst of a rule, in tokens: beyond it a limit limits nothing. */
export const MAX_CAPACITY = 1_000_000_000;
/** Fastest refill, in tokens per second (a larger rate switches the limit off in effect). */
export const MAX_RATE = 1_000_000;
/** Slowest refill, in tokens per second (one token in 30 days): keys must expire. */
export const MIN_RATE = 1 / (30 * 86_400);

/** Longest wait of a paced rule, milliseconds (a minute: longer is a queue, not a rate limit). */
export const MAX_WAIT_MS = 60_000;

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
  if (rule.maxWaitMs !== undefined) {
    if (kind.paces !== true)
      p.push(
        `${path}.maxWaitMs: only gcra and token-bucket rules can pace (not ${String(rule.algorithm)})`,
      );
    else if (
      typeof rule.maxWaitMs !== 'number' ||
      !Number.isInteger(rule.maxWaitMs) ||
      rule.maxWaitMs < 0 ||
      rule.maxWaitMs > MAX_WAIT_MS
    )
      p.push(`${path}.maxWaitMs: must be an integer from 0 to ${MAX_WAIT_MS} (milliseconds)`);
  }
  if (rule.warmUp !== undefined) p.push(...validateWarmUp(rule, path));
  p.push(...validateConditions(rule, path, attributes));
  return p;
}

/** Longest warm-up of a gcra rule (ms). */
export const MAX_WARM_UP_MS = 600_000;

/** `warmUp`: a duration from 1 s to 10 min, on a gcra rule only. */
function validateWarmUp(rule: Record<string, unknown>, path: string): string[] {
  if (kindOfAlgorithm(rule.algorithm as string | undefined).algorithm !== 'gcra')
    return [`${path}.warmUp: only gcra rules can warm up (not ${String(rule.algorithm)})`];
  const ms = parseDuration(rule.warmUp);
  return ms === undefined || ms < 1_000 || ms > MAX_WARM_UP_MS
    ? [`${path}.warmUp: must be a duration from 1s to 10m (e.g. "30s")`]
    : [];
}

/** `stage`: {subjects?, instances?}, integers 0–100, only on an enforcing rule. */
function validateStage(rule: Record<string, unknown>, path: string): string[] {
  const st = rule.stage;
  if (st === undefined) return [];
  if (rule.mode === 'shadow')
    return [`${path}.stage: a shadow rule has no stage (use mode enforce)`];
  const pct = (v: unknown): boolean =>
    v === undefined || (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 100);
  if (
    !isRecord(st) ||
    Object.keys(st).some((k) => k !== 'subjects' && k !== 'instances') ||
    !pct(st.subjects) ||
    !pct(st.instances)
  )
    return [`${path}.stage: must be {subjects?, instances?}, whole percents from 0 to 100`];
  return [];
}

/** The checks of a rule's own options: penalty, paced wait, warm-up, stage. */
import { isRecord } from '../../../common/is-record.js';
import { parseDuration } from '../core/rate-parse.js';
import type { RuleKind } from '../core/rule-kind.types.js';
import { kindOfAlgorithm } from '../core/rule-kinds.js';
import { fraction, posInt } from './value-checks.js';

/** Longest wait of a paced rule, milliseconds (a minute: longer is a queue, not a rate limit). */
export const MAX_WAIT_MS = 60_000;

/** `penalty`: {threshold, factor, decay, floor?}. */
export function validatePenalty(pen: unknown, path: string): string[] {
  const p: string[] = [];
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
  return p;
}

/** `maxWaitMs`: an integer from 0 to MAX_WAIT_MS, on a kind that paces only. */
export function validateMaxWait(
  rule: Record<string, unknown>,
  kind: RuleKind,
  path: string,
): string[] {
  if (kind.paces !== true)
    return [
      `${path}.maxWaitMs: only gcra and token-bucket rules can pace (not ${String(rule.algorithm)})`,
    ];
  const ms = rule.maxWaitMs;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_WAIT_MS)
    return [`${path}.maxWaitMs: must be an integer from 0 to ${MAX_WAIT_MS} (milliseconds)`];
  return [];
}

/** Longest warm-up of a gcra rule (ms). */
export const MAX_WARM_UP_MS = 600_000;

/** `warmUp`: a duration from 1 s to 10 min, on a gcra rule only. */
export function validateWarmUp(rule: Record<string, unknown>, path: string): string[] {
  if (kindOfAlgorithm(rule.algorithm as string | undefined).algorithm !== 'gcra')
    return [`${path}.warmUp: only gcra rules can warm up (not ${String(rule.algorithm)})`];
  const ms = parseDuration(rule.warmUp);
  return ms === undefined || ms < 1_000 || ms > MAX_WARM_UP_MS
    ? [`${path}.warmUp: must be a duration from 1s to 10m (e.g. "30s")`]
    : [];
}

/** `stage`: {subjects?, instances?}, integers 0–100, only on an enforcing rule. */
export function validateStage(rule: Record<string, unknown>, path: string): string[] {
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

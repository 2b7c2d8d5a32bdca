import { isRecord } from '../../../common/is-record.js';
import { parseDuration } from '../core/rate-parse.js';
import {
  type HealthThreshold,
  LOAD_LEVELS,
  type LoadLevel,
  type LoadSettings,
  SHED_CLASSES,
  type ShedClass,
} from '../core/load.types.js';

export function defaultLoadSettings(): LoadSettings {
  return {
    soft: 0.7,
    hard: 0.95,
    pollMs: 250,
    holdMs: 2_000,
    softFactor: 0.5,
    reduceFrom: 2,
    cacheFrom: 1,
    retryAfterS: 5,
    shedFirst: [...SHED_CLASSES],
  };
}

const KEYS = new Set([
  'soft',
  'hard',
  'poll',
  'hold',
  'softFactor',
  'reduceFrom',
  'cacheFrom',
  'retryAfter',
  'pin',
  'eventLoopDelay',
  'admittedP99',
  'shedFirst',
]);

/** `{ soft, hard }` durations of one health input (absent: the input is off). */
function threshold(raw: unknown, at: string, p: string[]): HealthThreshold | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw) || Object.keys(raw).some((k) => k !== 'soft' && k !== 'hard')) {
    p.push(`${at}: must be { soft, hard } durations (e.g. { soft: 50ms, hard: 200ms })`);
    return undefined;
  }
  const soft = parseDuration(raw.soft);
  const hard = parseDuration(raw.hard);
  if (soft === undefined || hard === undefined || soft < 1 || hard > 600_000 || soft >= hard) {
    p.push(`${at}: soft and hard must be durations from 1 ms to 10 min, soft below hard`);
    return undefined;
  }
  return { softMs: soft, hardMs: hard };
}

/** Reads CONFIG_FILE `rateLimit.load`; every problem is listed with its path. */
export function validateLoad(raw: unknown, at: string): { load: LoadSettings; problems: string[] } {
  const load = defaultLoadSettings();
  const p: string[] = [];
  if (raw === undefined) return { load, problems: p };
  if (!isRecord(raw)) return { load, problems: [`${at}: must be an object`] };
  for (const k of Object.keys(raw))
    if (!KEYS.has(k)) p.push(`${at}.${k}: unknown option (known: ${[...KEYS].join(', ')})`);
  const frac = (k: 'soft' | 'hard' | 'softFactor'): void => {
    const v = raw[k];
    if (v === undefined) return;
    if (typeof v !== 'number' || !(v > 0 && v <= 1))
      p.push(`${at}.${k}: must be a number with 0 < ${k} ≤ 1`);
    else load[k] = v;
  };
  frac('soft');
  frac('hard');
  frac('softFactor');
  if (load.soft >= load.hard)
    p.push(`${at}: soft (${load.soft}) must be below hard (${load.hard})`);
  const ms = (k: 'poll' | 'hold', min: number, max: number, set: (n: number) => void): void => {
    if (raw[k] === undefined) return;
    const n = parseDuration(raw[k]);
    if (n === undefined || n < min || n > max)
      p.push(`${at}.${k}: must be a duration from ${min} to ${max} ms`);
    else set(Math.round(n));
  };
  ms('poll', 20, 1_000, (n) => (load.pollMs = n));
  ms('hold', 0, 600_000, (n) => (load.holdMs = n));
  const int = (
    k: 'reduceFrom' | 'cacheFrom' | 'retryAfter',
    min: number,
    max: number,
  ): number | undefined => {
    const v = raw[k];
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || (v as number) < min || (v as number) > max) {
      p.push(`${at}.${k}: must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return v as number;
  };
  load.reduceFrom = int('reduceFrom', 0, 9) ?? load.reduceFrom;
  load.cacheFrom = int('cacheFrom', 0, 9) ?? load.cacheFrom;
  load.retryAfterS = int('retryAfter', 1, 3_600) ?? load.retryAfterS;
  if (raw.pin !== undefined) {
    if (!LOAD_LEVELS.includes(raw.pin as LoadLevel))
      p.push(`${at}.pin: must be one of ${LOAD_LEVELS.join(', ')}`);
    else load.pin = raw.pin as LoadLevel;
  }
  const loop = threshold(raw.eventLoopDelay, `${at}.eventLoopDelay`, p);
  if (loop) load.eventLoopDelay = loop;
  const lat = threshold(raw.admittedP99, `${at}.admittedP99`, p);
  if (lat) load.admittedP99 = lat;
  if (raw.shedFirst !== undefined) {
    const list = raw.shedFirst;
    if (!Array.isArray(list) || list.some((c) => !SHED_CLASSES.includes(c as ShedClass)))
      p.push(`${at}.shedFirst: must be a list of ${SHED_CLASSES.join(', ')} (empty: none)`);
    else load.shedFirst = [...new Set(list as ShedClass[])];
  }
  return { load, problems: p };
}

import type { LockSlice } from '../../config/policy.types.js';
import {
  DEFAULT_SETTINGS,
  type CacheShieldSettings,
  type CacheShieldSlice,
  type ShieldRoute,
} from './cache-shield.types.js';
import { normalizeQuery } from './request/query-normalizer.js';

const OPTIONS = [
  'mode',
  'override',
  'key',
  'filter',
  'filterOffUntil',
  'allowlist',
  'resultTtlSeconds',
  'nullTtlSeconds',
  'staleTtlSeconds',
  'jitter',
  'maxQueryLength',
];
const DAY_S = 86_400;

function num(
  v: unknown,
  path: string,
  min: number,
  max: number,
  integer: boolean,
  out: string[],
): void {
  if (v === undefined) return;
  if (
    typeof v !== 'number' ||
    !Number.isFinite(v) ||
    v < min ||
    v > max ||
    (integer && !Number.isInteger(v))
  ) {
    out.push(`${path}: must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}`);
  }
}

function runs(slice: LockSlice): boolean {
  const o = slice.override as { mode?: unknown } | undefined;
  return slice.mode !== 'off' || (o !== undefined && o.mode !== undefined && o.mode !== 'off');
}

/** Every problem with a cacheShield slice (empty = valid). */
export function validateSlice(slice: LockSlice, path: string): string[] {
  const out: string[] = [];
  const s = slice as CacheShieldSlice;
  for (const k of Object.keys(slice))
    if (!OPTIONS.includes(k))
      out.push(`${path}.${k}: unknown option (known: ${OPTIONS.join(', ')})`);
  if (s.key === undefined ? runs(slice) : s.key !== 'query' && s.key !== 'id')
    out.push(`${path}.key: must be "query" or "id"`);
  if (s.filter !== undefined && s.filter !== 'on' && s.filter !== 'off')
    out.push(`${path}.filter: must be "on" or "off"`);
  if (
    s.filterOffUntil !== undefined &&
    (typeof s.filterOffUntil !== 'number' || !Number.isFinite(s.filterOffUntil))
  )
    out.push(`${path}.filterOffUntil: must be epoch milliseconds`);
  num(s.resultTtlSeconds, `${path}.resultTtlSeconds`, 0, DAY_S, false, out);
  num(s.nullTtlSeconds, `${path}.nullTtlSeconds`, 0, DAY_S, false, out);
  num(s.staleTtlSeconds, `${path}.staleTtlSeconds`, 0, 7 * DAY_S, false, out);
  num(s.jitter, `${path}.jitter`, 0, 0.5, false, out);
  num(s.maxQueryLength, `${path}.maxQueryLength`, 1, 8_192, true, out);
  if (s.allowlist !== undefined) {
    if (!Array.isArray(s.allowlist)) out.push(`${path}.allowlist: must be a list of {key, until?}`);
    else if (s.allowlist.length > 1_000) out.push(`${path}.allowlist: at most 1000 entries`);
    else
      s.allowlist.forEach((e, i) => {
        const at = `${path}.allowlist[${i}]`;
        if (typeof e !== 'object' || e === null || Array.isArray(e))
          return void out.push(`${at}: must be {key, until?}`);
        for (const k of Object.keys(e))
          if (k !== 'key' && k !== 'until') out.push(`${at}.${k}: unknown option (key, until)`);
        if (typeof e.key !== 'string' || e.key.trim() === '' || e.key.length > 1_024)
          out.push(`${at}.key: must be a non-empty string of at most 1024 characters`);
        if (e.until !== undefined && (typeof e.until !== 'number' || !Number.isFinite(e.until)))
          out.push(`${at}.until: must be epoch milliseconds`);
      });
  }
  return out;
}

/** A valid slice with defaults applied (see CacheShieldSlice for each default). */
export function compileSlice(slice: LockSlice): ShieldRoute {
  const s = slice as CacheShieldSlice;
  const key = s.key ?? 'query';
  const allowlist = new Map<string, number>();
  for (const e of s.allowlist ?? [])
    allowlist.set(key === 'query' ? normalizeQuery(e.key) : e.key, e.until ?? Infinity);
  return {
    key,
    filterOn: s.filter !== 'off',
    filterOffUntil: s.filterOffUntil ?? Infinity,
    allowlist,
    resultTtlMs: (s.resultTtlSeconds ?? 60) * 1_000,
    nullTtlMs: (s.nullTtlSeconds ?? 10) * 1_000,
    staleTtlMs: (s.staleTtlSeconds ?? 600) * 1_000,
    jitter: s.jitter ?? 0.1,
    maxQueryLength: s.maxQueryLength ?? 512,
  };
}

const LIMITS: Record<keyof CacheShieldSettings, [number, number, boolean]> = {
  targetFpRate: [1e-9, 0.5, false],
  measureSample: [0, 10_000_000, true],
  revisionPollMs: [0, 3_600_000, true],
  resyncMs: [100, 86_400_000, true],
  buildLockMs: [1_000, 86_400_000, true],
  buildWaitMs: [0, 86_400_000, true],
  addGraceMs: [0, 86_400_000, true],
  rebuildAfterGrowth: [0, 100, false],
  driftFactor: [1, 1_000, false],
  driftMinSamples: [1, 1e12, true],
  memoryCacheEntries: [0, 10_000_000, true],
  bloomTtlDays: [1, 3_650, true],
};

/** Reads CONFIG_FILE `cacheShield:` over the defaults, listing every problem. */
export function validateSettings(raw: unknown): {
  settings: CacheShieldSettings;
  problems: string[];
} {
  const settings = { ...DEFAULT_SETTINGS };
  if (raw === undefined) return { settings, problems: [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { settings, problems: ['CONFIG_FILE: cacheShield must be an object'] };
  const problems: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    const limit = LIMITS[k as keyof CacheShieldSettings];
    if (!limit) {
      problems.push(
        `CONFIG_FILE: cacheShield.${k} is not a known option (${Object.keys(LIMITS).join(', ')})`,
      );
      continue;
    }
    const before = problems.length;
    num(v, `CONFIG_FILE: cacheShield.${k}`, limit[0], limit[1], limit[2], problems);
    if (problems.length === before) settings[k as keyof CacheShieldSettings] = v as number;
  }
  return { settings, problems };
}

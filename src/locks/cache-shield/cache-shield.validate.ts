import type { LockSlice } from '../../config/policy.types.js';
import type { CacheShieldSlice, ShieldRoute } from './cache-shield.types.js';
import type { KeySource } from './cache-shield.key-source.js';

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
  'serveWhileBuilding',
  'cacheScope',
];
const DAY_S = 86_400;

/** Adds a problem when `v` is given and is not a number in [min, max] (an integer when asked). */
export function num(
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

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
function oneOf(names: readonly string[]): string {
  const quoted = names.map((n) => `"${n}"`);
  return quoted.length <= 1
    ? quoted.join('')
    : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** Every problem with a cacheShield slice (empty = valid); `key` must name one of `keySources`. */
export function validateSlice(
  slice: LockSlice,
  path: string,
  keySources: readonly string[],
): string[] {
  const out: string[] = [];
  const s = slice as CacheShieldSlice;
  for (const k of Object.keys(slice))
    if (!OPTIONS.includes(k))
      out.push(`${path}.${k}: unknown option (known: ${OPTIONS.join(', ')})`);
  if (s.key === undefined ? runs(slice) : typeof s.key !== 'string' || !keySources.includes(s.key))
    out.push(
      keySources.length > 0
        ? `${path}.key: must be ${oneOf(keySources)}`
        : `${path}.key: must name a registered key source (none is registered)`,
    );
  if (s.filter !== undefined && s.filter !== 'on' && s.filter !== 'off')
    out.push(`${path}.filter: must be "on" or "off"`);
  if (
    s.filterOffUntil !== undefined &&
    (typeof s.filterOffUntil !== 'number' || !Number.isFinite(s.filterOffUntil))
  )
    out.push(`${path}.filterOffUntil: must be epoch milliseconds`);
  if (s.serveWhileBuilding !== undefined && typeof s.serveWhileBuilding !== 'boolean')
    out.push(`${path}.serveWhileBuilding: must be true or false`);
  if (s.cacheScope !== undefined && s.cacheScope !== 'app' && s.cacheScope !== 'shared')
    out.push(`${path}.cacheScope: must be "app" or "shared"`);
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

/** A valid slice with defaults applied and its key source resolved (see CacheShieldSlice for each default). */
export function compileSlice(
  slice: LockSlice,
  keySources: ReadonlyMap<string, KeySource>,
): ShieldRoute {
  const s = slice as CacheShieldSlice;
  const key = s.key ?? '';
  const source = keySources.get(key);
  if (!source) throw new Error(`cache shield: no key source "${key}" is registered`);
  const allowlist = new Map<string, number>();
  for (const e of s.allowlist ?? [])
    allowlist.set(source.allowKey ? source.allowKey(e.key) : e.key, e.until ?? Infinity);
  return {
    key,
    source,
    filterOn: s.filter !== 'off',
    filterOffUntil: s.filterOffUntil ?? Infinity,
    allowlist,
    resultTtlMs: (s.resultTtlSeconds ?? 60) * 1_000,
    nullTtlMs: (s.nullTtlSeconds ?? 10) * 1_000,
    staleTtlMs: (s.staleTtlSeconds ?? 600) * 1_000,
    jitter: s.jitter ?? 0.1,
    maxQueryLength: s.maxQueryLength ?? 512,
    scope: s.cacheScope ?? 'app',
  };
}

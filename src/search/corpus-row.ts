import type { FieldValue, SearchItem } from './search-backend.interface.js';
import { MAX_ID_LENGTH } from './search-document.js';

/** Longest accepted name, in characters. */
export const MAX_NAME_LENGTH = 1_024;
/** Most alternative names per item. */
export const MAX_ALT_NAMES = 100;

const KNOWN = new Set([
  'id',
  'name',
  'country',
  'population',
  'lat',
  'lon',
  'altNames',
  'alt_names',
  'fields',
]);

/** Result of reading one row: an item, or the reason it was refused. */
export type RowResult = { item: SearchItem } | { error: string };

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

function num(
  v: unknown,
  name: string,
  ok: (n: number) => boolean,
  rule: string,
  problems: string[],
): number | undefined {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n) || !ok(n)) {
    problems.push(`${name} must be ${rule} (got ${JSON.stringify(v)})`);
    return undefined;
  }
  return n;
}

function altNames(v: unknown, problems: string[]): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const list =
    typeof v === 'string'
      ? v.split('|')
      : Array.isArray(v) && v.every((s) => typeof s === 'string')
        ? (v as string[])
        : undefined;
  if (!list) {
    problems.push('altNames must be a list of strings or a string of names separated by |');
    return undefined;
  }
  const names = list.map((s) => s.trim()).filter((s) => s !== '');
  if (names.length > MAX_ALT_NAMES)
    problems.push(`altNames may hold at most ${MAX_ALT_NAMES} names`);
  return names.length > 0 ? names : undefined;
}

/**
 * Turns one row of a user's corpus (a JSON object, or a CSV record keyed by
 * its header) into a search item. Needs `id` and `name`; reads `country`,
 * `population`, `lat`, `lon`, `altNames`; every other column goes to `fields`.
 */
export function rowToSearchItem(row: Record<string, unknown>): RowResult {
  const problems: string[] = [];
  const id = text(row.id);
  if (id === undefined) problems.push('id is missing');
  else if (id.length > MAX_ID_LENGTH)
    problems.push(`id is longer than ${MAX_ID_LENGTH} characters`);
  const name = text(row.name);
  if (name === undefined) problems.push('name is missing');
  else if (name.length > MAX_NAME_LENGTH)
    problems.push(`name is longer than ${MAX_NAME_LENGTH} characters`);
  const item: SearchItem = { id: id ?? '', name: name ?? '' };
  const country = text(row.country);
  if (country !== undefined) item.country = country;
  const population = num(
    row.population,
    'population',
    (n) => Number.isSafeInteger(n) && n >= 0,
    'a whole number ≥ 0',
    problems,
  );
  if (population !== undefined) item.population = population;
  const lat = num(row.lat, 'lat', (n) => Math.abs(n) <= 90, 'a number in -90..90', problems);
  if (lat !== undefined) item.lat = lat;
  const lon = num(row.lon, 'lon', (n) => Math.abs(n) <= 180, 'a number in -180..180', problems);
  if (lon !== undefined) item.lon = lon;
  const alt = altNames(row.altNames ?? row.alt_names, problems);
  if (alt) item.altNames = alt;
  const fields: Record<string, FieldValue> = {};
  if (row.fields !== undefined) {
    if (typeof row.fields === 'object' && row.fields !== null && !Array.isArray(row.fields))
      Object.assign(fields, row.fields);
    else problems.push('fields must be an object');
  }
  for (const [k, v] of Object.entries(row)) {
    if (!KNOWN.has(k) && v !== undefined && v !== '') fields[k] = v as FieldValue;
  }
  if (Object.keys(fields).length > 0) item.fields = fields;
  return problems.length > 0 ? { error: problems.join('; ') } : { item };
}

import type { AddBatch, FieldValue, SearchItem } from './search-backend.interface.js';
import { tokenize, uniqueTerms } from './search-tokenizer.js';

/** An item as both backends store it: its distinct terms and its normalised name (for ordering). */
export interface IndexedItem {
  item: SearchItem;
  /** Distinct terms of name, alternative names and country. */
  terms: string[];
  /** The name's terms joined by single spaces; results whose name equals the query come first. */
  nameNorm: string;
}

/** An item that no backend may store (the index CLI reports these per line before they get here). */
export class SearchItemError extends Error {
  override readonly name = 'SearchItemError';
}

/** Largest accepted id, in characters. */
export const MAX_ID_LENGTH = 256;

function check(item: SearchItem): void {
  const where = typeof item?.id === 'string' ? `item "${item.id.slice(0, 64)}"` : 'item';
  if (typeof item?.id !== 'string' || item.id.length === 0 || item.id.length > MAX_ID_LENGTH) {
    throw new SearchItemError(`${where}: id must be a string of 1-${MAX_ID_LENGTH} characters`);
  }
  if (typeof item.name !== 'string' || item.name.trim() === '')
    throw new SearchItemError(`${where}: name must be a non-empty string`);
  if (
    item.population !== undefined &&
    !(Number.isSafeInteger(item.population) && item.population >= 0)
  ) {
    throw new SearchItemError(`${where}: population must be a whole number ≥ 0`);
  }
  if (item.lat !== undefined && !(Number.isFinite(item.lat) && Math.abs(item.lat) <= 90))
    throw new SearchItemError(`${where}: lat must lie in -90..90`);
  if (item.lon !== undefined && !(Number.isFinite(item.lon) && Math.abs(item.lon) <= 180))
    throw new SearchItemError(`${where}: lon must lie in -180..180`);
}

/** Terms and normalised name of one item (validated). */
export function indexItem(item: SearchItem): IndexedItem {
  check(item);
  return {
    item,
    terms: uniqueTerms(item.name, ...(item.altNames ?? []), item.country ?? ''),
    nameNorm: tokenize(item.name).join(' '),
  };
}

/** Validates and indexes a batch; a repeated id keeps its last version (upsert semantics, as SQL would). */
export function prepareBatch(items: readonly SearchItem[]): {
  docs: IndexedItem[];
  batch: AddBatch;
} {
  const byId = new Map<string, IndexedItem>();
  for (const item of items) {
    const doc = indexItem(item);
    byId.delete(doc.item.id);
    byId.set(doc.item.id, doc);
  }
  const docs = [...byId.values()];
  const terms = new Set<string>();
  for (const d of docs) for (const t of d.terms) terms.add(t);
  return { docs, batch: { terms: [...terms], ids: docs.map((d) => d.item.id) } };
}

/** The distinct terms of a query and its normalised form. */
export function queryOf(q: string): { terms: string[]; norm: string } {
  const all = tokenize(q);
  return { terms: [...new Set(all)], norm: all.join(' ') };
}

/** A stored row, as both backends select it. */
export interface ItemRow {
  id: string;
  name: string;
  country: string | null;
  population: number | null;
  lat: number | null;
  lon: number | null;
  /** JSON text (SQLite) or already parsed (PostgreSQL jsonb). */
  alt_names: string | string[] | null;
  fields: string | Record<string, FieldValue> | null;
}

/** Columns selected for an item, in the order of {@link ItemRow}. */
export const ITEM_COLUMNS = 'id, name, country, population, lat, lon, alt_names, fields';

/** A stored row back into an item; absent values are left out. */
export function rowToItem(row: ItemRow): SearchItem {
  const item: SearchItem = { id: row.id, name: row.name };
  if (row.country !== null) item.country = row.country;
  if (row.population !== null) item.population = row.population;
  if (row.lat !== null) item.lat = row.lat;
  if (row.lon !== null) item.lon = row.lon;
  if (row.alt_names !== null)
    item.altNames =
      typeof row.alt_names === 'string' ? (JSON.parse(row.alt_names) as string[]) : row.alt_names;
  if (row.fields !== null)
    item.fields =
      typeof row.fields === 'string'
        ? (JSON.parse(row.fields) as Record<string, FieldValue>)
        : row.fields;
  return item;
}

/** Column values of an item for an INSERT, in the order of {@link ItemRow} plus name_norm. */
export function itemValues(
  doc: IndexedItem,
): [
  string,
  string,
  string | null,
  number | null,
  number | null,
  number | null,
  string | null,
  string | null,
  string,
] {
  const { item } = doc;
  return [
    item.id,
    item.name,
    item.country ?? null,
    item.population ?? null,
    item.lat ?? null,
    item.lon ?? null,
    item.altNames && item.altNames.length > 0 ? JSON.stringify(item.altNames) : null,
    item.fields && Object.keys(item.fields).length > 0 ? JSON.stringify(item.fields) : null,
    doc.nameNorm,
  ];
}

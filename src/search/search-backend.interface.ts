/** Injection token of the configured {@link SearchBackend}. */
export const SEARCH_BACKEND = Symbol.for('rampart.SearchBackend');

/** A JSON value kept with an item and returned as is. */
export type FieldValue =
  string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };

/**
 * One searchable item. The shipped corpus holds world cities; a user's own
 * corpus (`npm run index`) needs only `id` and `name`. Searchable text:
 * `name`, `altNames` and `country`; `fields` are stored and returned only.
 */
export interface SearchItem {
  id: string;
  name: string;
  /** ISO 3166-1 alpha-2 country code, for cities. */
  country?: string;
  population?: number;
  /** Latitude in degrees (−90…90). */
  lat?: number;
  /** Longitude in degrees (−180…180). */
  lon?: number;
  altNames?: string[];
  /** Any other attributes of the item (not searchable). */
  fields?: Record<string, FieldValue>;
}

/** One page of results and the number of matching items in all. */
export interface SearchPage {
  items: SearchItem[];
  total: number;
}

/** What an add is about to make searchable. */
export interface AddBatch {
  /** Distinct terms of the batch, exactly as `tokenize()` produces them. */
  terms: string[];
  /** Ids of the batch (each once). */
  ids: string[];
}

/** Runs before a batch becomes searchable; a rejection fails the add and nothing becomes searchable. */
export type BeforeAddListener = (batch: AddBatch) => Promise<void>;

/**
 * A full-text search backend. Query text is split by `tokenize()` and every
 * term must match (AND, whole terms only, no prefixes), so one term absent
 * from `vocabulary()` means an empty result. Results are ordered: items whose
 * whole name equals the query terms first, then by population (largest
 * first, none last), then by id.
 */
export interface SearchBackend {
  readonly name: 'sqlite' | 'postgres';

  search(q: string, limit: number, offset: number, signal?: AbortSignal): Promise<SearchPage>;
  getById(id: string, signal?: AbortSignal): Promise<SearchItem | undefined>;

  /** Every indexed term, each once, in byte order of its UTF-8 form. */
  vocabulary(): AsyncIterable<string>;
  /** Every item id, each once, in byte order of its UTF-8 form. */
  ids(): AsyncIterable<string>;
  /** Items and distinct terms; `revision` grows with every committed add (also from another process). */
  count(): Promise<{ items: number; terms: number; revision: number }>;

  /** Inserts or replaces items (by id), after every before-add listener has resolved. */
  add(items: SearchItem[]): Promise<void>;
  /** Removes every item (the index stays initialised). */
  clear(): Promise<void>;
  /** Registers a listener; returns a function that removes it. */
  onBeforeAdd(listener: BeforeAddListener): () => void;

  ping(): Promise<void>;
  close(): Promise<void>;
}

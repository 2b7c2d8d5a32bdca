import type { AddBatch, SearchBackend } from '../../../search/search-backend.interface.js';

export const TERMS_FILTER = 'search-terms';
export const IDS_FILTER = 'item-ids';

/** Where a filter's keys come from: the authoritative backend only, never user input. */
export interface FilterSource {
  readonly name: string;
  /** Shown with each build, e.g. `sqlite:vocabulary`. */
  readonly source: string;
  /** Every key, from the backend. */
  keys(): AsyncIterable<string>;
  /** The keys an add batch makes searchable. */
  batchKeys(batch: AddBatch): string[];
}

/** The two filters of the search API: indexed terms (queries) and item ids. */
export function searchFilterSources(backend: SearchBackend): FilterSource[] {
  return [
    {
      name: TERMS_FILTER,
      source: `${backend.name}:vocabulary`,
      keys: () => backend.vocabulary(),
      batchKeys: (b) => b.terms,
    },
    {
      name: IDS_FILTER,
      source: `${backend.name}:ids`,
      keys: () => backend.ids(),
      batchKeys: (b) => b.ids,
    },
  ];
}

import type { SearchItem } from './search-backend.interface.js';

/** How a backend is opened. */
export interface SearchOpenOptions {
  /** Corpus loaded when the index has never been initialised; without it the index starts empty. */
  seed?: { name: string; load: () => SearchItem[] };
  /** Progress and maintenance messages (the app passes its logger). */
  log?: (message: string) => void;
}

/** Items between two progress lines while a seed corpus is indexed. */
export const PROGRESS_EVERY = 20_000;

/** Rows fetched per page by the vocabulary and id iterators. */
export const ITERATOR_PAGE = 5_000;

/** Format of the stored index; a stored index of another format is rebuilt. Includes the tokenizer version. */
export function indexFormat(schema: number, tokenizer: number): string {
  return `schema${schema}.tokenizer${tokenizer}`;
}

import { BeforeAddListeners } from './before-add-listeners.js';
import type { BeforeAddListener, SearchItem } from './search-backend.interface.js';
import { IndexedItem, prepareBatch, queryOf } from './search-document.js';
import { ITERATOR_PAGE } from './search-open-options.js';

/**
 * What the two SQL backends (PostgreSQL, SQLite) share: the before-add listeners, the closed state, a
 * query's terms, and keyset pages over ids and the vocabulary.
 */
export abstract class SqlSearchBackendBase {
  private readonly listeners = new BeforeAddListeners();
  protected closed = false;

  onBeforeAdd(listener: BeforeAddListener): () => void {
    return this.listeners.add(listener);
  }

  /** The documents of an add once every before-add listener took them; undefined when there is nothing to write. */
  protected async accepted(items: SearchItem[]): Promise<IndexedItem[] | undefined> {
    const { docs, batch } = prepareBatch(items);
    if (docs.length === 0) return undefined;
    await this.listeners.run(batch);
    return docs;
  }

  /** A query's terms and normalised form (after the open and abort checks); undefined when it has no term. */
  protected termsOf(q: string, signal?: AbortSignal): ReturnType<typeof queryOf> | undefined {
    this.ready(signal);
    const query = queryOf(q);
    return query.terms.length === 0 ? undefined : query;
  }

  /** Keyset pages of ITERATOR_PAGE values after the last one seen: no cursor stays open between pages. */
  protected async *pages(
    fetch: (after: string) => Promise<string[]> | string[],
  ): AsyncIterable<string> {
    let after = '';
    for (;;) {
      this.ready();
      const page = await fetch(after);
      yield* page;
      if (page.length < ITERATOR_PAGE) return;
      after = page[page.length - 1]!;
    }
  }

  protected ready(signal?: AbortSignal): void {
    if (this.closed) throw new Error('search backend is closed');
    signal?.throwIfAborted();
  }
}

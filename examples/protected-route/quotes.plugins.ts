/**
 * How the quotes product plugs into the locks: a cost function for the rate
 * limit and a key source plus a Bloom filter for the cache shield. No lock
 * file changes for this: the locks declare these extension points.
 */
import { ProblemException } from '../../src/common/problem.exception.js';
import type { AnyRequest } from '../../src/http/http-context.js';
import {
  SHIELD_HEADER,
  SKIP,
  type KeySource,
} from '../../src/locks/cache-shield/cache-shield.key-source.js';
import type { FilterSource } from '../../src/locks/cache-shield/cache-shield.filter-source.js';
import { QUOTES } from './quotes.data.js';

export function quoteNotFound(headers: Record<string, string> = {}): ProblemException {
  return ProblemException.fast(404, 'quote_not_found', 'Quote not found', { headers });
}

/** Rate-limit cost `quote-detail`: a request with `?detail=full` costs 3 tokens, others 1. */
export function quoteCost(req: AnyRequest): number {
  return (req as { query?: Record<string, unknown> }).query?.detail === 'full' ? 3 : 1;
}

/** Shield key source `quote-id`: the `:id` parameter, checked against the `quote-ids` filter. */
export const quoteIdKeys: KeySource<string> = {
  read(req) {
    const id = (req as { params?: Record<string, unknown> }).params?.id;
    return typeof id === 'string' && id !== ''
      ? { request: { filter: 'quote-ids', keys: [id], cacheKey: id, allowKey: id } }
      : SKIP;
  },
  accept: (r) => r.cacheKey,
  absent(_id, header): never {
    throw quoteNotFound({ [SHIELD_HEADER]: header }).asAnswer();
  },
  found: (_id, body) => body,
  isEmpty: () => false,
  isEmptyError: (err) => err instanceof ProblemException && err.problem.error === 'quote_not_found',
};

/** The Bloom filter of every quote id, built from the product's own data (never user input). */
export const quoteIds: FilterSource = {
  name: 'quote-ids',
  source: 'memory:quotes',
  async *keys() {
    yield* Object.keys(QUOTES);
  },
};

import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { AnyRequest } from '../http/http-context.js';
import {
  SKIP,
  type KeyRead,
  type KeySource,
} from '../locks/cache-shield/cache-shield.key-source.js';
import { codePointsOver, normalizeQuery } from '../locks/cache-shield/request/query-normalizer.js';
import { emptyPage, isEmptyPage, isItemNotFound, itemNotFound, pageFor } from './search-answers.js';
import { SearchQueryDto } from './search-query.dto.js';
import { SLOW, fastSearchQuery } from './search-query.fast.js';
import { tokenize } from './search-tokenizer.js';

/** The shield's filter of every indexed term (what queries are looked up in). */
export const TERMS_FILTER = 'search-terms';
/** The shield's filter of every item id. */
export const IDS_FILTER = 'item-ids';

/**
 * The shield's key source `query` (GET /v1/search): the Bloom keys are the
 * search tokenizer's distinct terms, exactly as indexed; the cache key is
 * the normalised query (case, spacing and Unicode forms ignored, see
 * normalizeQuery) with its paging. A query with no term at all (emoji,
 * punctuation, zero-width or combining marks only) can match nothing, as
 * the backends answer it: `nothing`, so the shield answers the empty page
 * itself. Read before the route's ValidationPipe,
 * so anything unexpected (a repeated or missing `q`, an array `limit`…) is
 * skipped and the route's own validation answers.
 */
export const searchQueryKeys: KeySource<SearchQueryDto> = {
  label: 'q',
  filters: [TERMS_FILTER],
  read(req: AnyRequest, maxLength: number): KeyRead {
    const query = (req as { query?: unknown }).query;
    if (typeof query !== 'object' || query === null) return SKIP;
    const { q, limit, offset } = query as Record<string, unknown>;
    if (typeof q !== 'string' || !optionalString(limit) || !optionalString(offset)) return SKIP;
    const norm = normalizeQuery(q);
    if (codePointsOver(norm, maxLength)) return { tooLong: maxLength };
    if (norm === '') return SKIP;
    const keys = [...new Set(tokenize(q))];
    return {
      request: {
        filter: TERMS_FILTER,
        keys,
        // No searchable term (emoji, punctuation, marks only): the backends answer an empty page.
        nothing: keys.length === 0,
        cacheKey: `${norm}\u0000${limit ?? ''}\u0000${offset ?? ''}`,
        allowKey: norm,
        input: query,
      },
    };
  },
  allowKey: normalizeQuery,
  accept: (r) => validSearchQuery(r.input as Record<string, unknown>),
  absent: (q) => emptyPage(q),
  found: (q, body) => pageFor(body, q),
  isEmpty: isEmptyPage,
  isEmptyError: () => false,
};

/** The shield's key source `id` (GET /v1/search/items/:id): the id exactly as given. */
export const searchItemKeys: KeySource<string> = {
  filters: [IDS_FILTER],
  read(req: AnyRequest): KeyRead {
    const id = (req as { params?: Record<string, unknown> }).params?.id;
    return typeof id === 'string' && id !== ''
      ? { request: { filter: IDS_FILTER, keys: [id], cacheKey: id, allowKey: id } }
      : SKIP;
  },
  accept: (r) => r.cacheKey,
  absent(_id: string, header: string): never {
    throw itemNotFound(header).asAnswer();
  },
  found: (_id, body) => body,
  isEmpty: () => false,
  isEmptyError: isItemNotFound,
};

function optionalString(v: unknown): boolean {
  return v === undefined || typeof v === 'string';
}

/**
 * The search query exactly as the route will see it, or undefined when the
 * route would refuse it (same DTO, same options as the global ValidationPipe):
 * the shield never answers a request the route would answer with a 400.
 */
export function validSearchQuery(query: Record<string, unknown>): SearchQueryDto | undefined {
  const fast = fastSearchQuery(query);
  return fast === SLOW ? slowSearchQuery(query) : fast;
}

/** The DTO's own validation (class-transformer + class-validator), for what the fast path leaves. */
export function slowSearchQuery(query: Record<string, unknown>): SearchQueryDto | undefined {
  const dto = plainToInstance(SearchQueryDto, { ...query });
  return validateSync(dto, { whitelist: true, forbidUnknownValues: true }).length === 0
    ? dto
    : undefined;
}

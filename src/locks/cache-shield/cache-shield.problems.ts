import { ProblemException } from '../../../common/problem.exception.js';
import type { SearchQueryDto } from '../../../search/search-query.dto.js';

/** Response header naming why the shield answered: `bloom-absent;v=7`, `null-cache`, `cache-hit`, `cache-hit;stale`, `coalesced`, `too-long`. */
export const SHIELD_HEADER = 'Rampart-Shield';

/** The search answer for a query with no hits, as the route would give it. */
export function emptyPage(q: SearchQueryDto): Record<string, unknown> {
  return { query: q.q, total: 0, items: [], limit: q.limit, offset: q.offset };
}

/** A cached search answer for this request: the cache key ignores case and spacing, so `query` is this request's own. */
export function pageFor(body: unknown, q: SearchQueryDto): unknown {
  return typeof body === 'object' && body !== null ? { ...body, query: q.q } : body;
}

/** The route's own 404 for an unknown id, with the reason header. */
export function itemNotFound(reason: string): ProblemException {
  return ProblemException.fast(404, 'item_not_found', 'Item not found', {
    detail: 'No item has this id',
    headers: { [SHIELD_HEADER]: reason },
  });
}

export function isItemNotFound(err: unknown): boolean {
  return err instanceof ProblemException && err.problem.error === 'item_not_found';
}

export function queryTooLong(max: number): ProblemException {
  return ProblemException.fast(400, 'query_too_long', 'Query too long', {
    detail: `q is longer than ${max} characters after normalisation`,
    headers: { [SHIELD_HEADER]: 'too-long' },
    max_length: max,
  });
}

/** True for a search answer without hits (what the null cache keeps). */
export function isEmptyPage(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { total?: unknown }).total === 0;
}

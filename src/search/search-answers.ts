import { ProblemException } from '../common/problem.exception.js';
import { SHIELD_HEADER } from '../locks/cache-shield/cache-shield.key-source.js';
import type { SearchQueryDto } from './search-query.dto.js';

/** The search answer for a query with no hits, as the route would give it. */
export function emptyPage(q: SearchQueryDto): Record<string, unknown> {
  return { query: q.q, total: 0, items: [], limit: q.limit, offset: q.offset };
}

/** A cached search answer for this request: the cache key ignores case and spacing, so `query` is this request's own. */
export function pageFor(body: unknown, q: SearchQueryDto): unknown {
  return typeof body === 'object' && body !== null ? { ...body, query: q.q } : body;
}

/** True for a search answer without hits (what the shield's null cache keeps). */
export function isEmptyPage(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { total?: unknown }).total === 0;
}

/** The item route's own 404 for an unknown id, as the shield gives it (with its reason header). */
export function itemNotFound(reason: string): ProblemException {
  return ProblemException.fast(404, 'item_not_found', 'Item not found', {
    detail: 'No item has this id',
    headers: { [SHIELD_HEADER]: reason },
  });
}

export function isItemNotFound(err: unknown): boolean {
  return err instanceof ProblemException && err.problem.error === 'item_not_found';
}

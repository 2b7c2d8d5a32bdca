import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { AnyRequest } from '../../../http/http-context.js';
import { SearchQueryDto } from '../../../search/search-query.dto.js';
import { tokenize } from '../../../search/search-tokenizer.js';
import type { ShieldRoute } from '../cache-shield.types.js';
import { IDS_FILTER, TERMS_FILTER } from '../filters/filter-sources.js';
import { codePointsOver, normalizeQuery } from './query-normalizer.js';

/** What the shield looks up for one request. */
export interface ShieldRequest {
  kind: 'query' | 'id';
  filter: string;
  /** Bloom keys: the query's distinct terms (the search tokenizer's, exactly as indexed) or the id. */
  keys: string[];
  /** Request key for the caches and single flight: normalised query with paging, or the id. */
  cacheKey: string;
  /** Allowlist key: normalised query or id. */
  allowKey: string;
  /** The raw query parameters (query routes), for validation before the shield answers itself. */
  query?: Record<string, unknown>;
}

export type ReadOutcome = { request: ShieldRequest } | { tooLong: number } | { skip: true };

/**
 * Reads a request as the shield sees it. This runs before Nest's
 * ValidationPipe, so every value is taken defensively: anything unexpected
 * (a repeated or missing `q`, an array `limit`…) is `skip` — the shield
 * stays out of the way and the route's own validation answers.
 */
export function readRequest(req: AnyRequest, route: ShieldRoute): ReadOutcome {
  if (route.key === 'id') {
    const id = (req as { params?: Record<string, unknown> }).params?.id;
    return typeof id === 'string' && id !== ''
      ? { request: { kind: 'id', filter: IDS_FILTER, keys: [id], cacheKey: id, allowKey: id } }
      : { skip: true };
  }
  const query = (req as { query?: unknown }).query;
  if (typeof query !== 'object' || query === null) return { skip: true };
  const { q, limit, offset } = query as Record<string, unknown>;
  if (typeof q !== 'string' || !optionalString(limit) || !optionalString(offset))
    return { skip: true };
  const norm = normalizeQuery(q);
  if (codePointsOver(norm, route.maxQueryLength)) return { tooLong: route.maxQueryLength };
  if (norm === '') return { skip: true };
  const keys = [...new Set(tokenize(q))];
  return {
    request: {
      kind: 'query',
      filter: TERMS_FILTER,
      keys,
      cacheKey: `${norm}\u0000${limit ?? ''}\u0000${offset ?? ''}`,
      allowKey: norm,
      query: query as Record<string, unknown>,
    },
  };
}

function optionalString(v: unknown): boolean {
  return v === undefined || typeof v === 'string';
}

/**
 * The search query exactly as the route will see it, or undefined when the
 * route would refuse it (same DTO, same options as the global ValidationPipe):
 * the shield never answers a request the route would answer with a 400.
 */
export function validSearchQuery(query: Record<string, unknown>): SearchQueryDto | undefined {
  const dto = plainToInstance(SearchQueryDto, { ...query });
  return validateSync(dto, { whitelist: true, forbidUnknownValues: true }).length === 0
    ? dto
    : undefined;
}

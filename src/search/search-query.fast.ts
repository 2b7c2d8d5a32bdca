import { SearchQueryDto } from './search-query.dto.js';

/** Returned when the fast path cannot decide: the caller validates the DTO the slow way. */
export const SLOW = Symbol('slow');

const DECIMAL = /^(?:0|[1-9]\d{0,14})$/;
/** Characters class-validator's Length does not count one by one (surrogates, variation selectors). */
const ODD_LENGTH = /[\uD800-\uDFFF]|\uFE0E|\uFE0F/;

/**
 * SearchQueryDto validated without reflection, for the plain cases that make up the
 * hot path (`q` a string, `limit` / `offset` absent or strings, nothing else): the same
 * answer as plainToInstance + validateSync with the global pipe's options — the DTO, or
 * undefined when the route would answer 400 — or SLOW for anything else (then the caller
 * runs the DTO's own validation). search-query.fast.spec.ts checks both agree.
 */
export function fastSearchQuery(
  query: Record<string, unknown>,
): SearchQueryDto | undefined | typeof SLOW {
  let n = 0;
  for (const k in query) {
    if (!Object.hasOwn(query, k)) continue;
    if (k !== 'q' && k !== 'limit' && k !== 'offset') return SLOW;
    n++;
  }
  const { q, limit, offset } = query;
  if (typeof q !== 'string' || n !== 1 + +(limit !== undefined) + +(offset !== undefined))
    return SLOW;
  const text = q.trim();
  if (text.length > 256 || ODD_LENGTH.test(text)) return SLOW;
  if (text.length === 0) return undefined;
  const l = int(limit, 10, 1, 100);
  const o = int(offset, 0, 0, 10_000);
  if (l === SLOW || o === SLOW) return SLOW;
  if (l === undefined || o === undefined) return undefined;
  const dto = new SearchQueryDto();
  dto.q = text;
  dto.limit = l;
  dto.offset = o;
  return dto;
}

/** An optional decimal query parameter within [min, max]; undefined = refused (400). */
function int(v: unknown, dflt: number, min: number, max: number): number | undefined | typeof SLOW {
  if (v === undefined) return dflt;
  if (typeof v !== 'string') return SLOW;
  if (!DECIMAL.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
}

import { ProblemException } from '../common/problem.exception.js';

/** Parsed query: one string per name, or a list when the name repeats. */
export type ParsedQuery = Record<string, string | string[]>;

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const SUSPECT = /%|proto|constructor/;

function decode(part: string): string | undefined {
  const plus = part.includes('+');
  if (!plus && !part.includes('%')) return part; // nothing to decode (the common case)
  try {
    return decodeURIComponent(plus ? part.replace(/\+/g, ' ') : part);
  } catch {
    return undefined;
  }
}

function pairs(raw: string): { pair: string; name?: string; value?: string }[] {
  return raw
    .split('&')
    .filter((p) => p !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return {
        pair,
        name: decode(eq < 0 ? pair : pair.slice(0, eq)),
        value: eq < 0 ? '' : decode(pair.slice(eq + 1)),
      };
    });
}

/**
 * The one query parser of both adapters (`a=1&a=2&b` → `{ a: ['1','2'], b: '' }`,
 * `+` is a space). It never throws: `queryProblem` refuses a bad query before
 * any route sees it, and the parser skips what that check refuses.
 */
export function parseQueryString(raw: string | null | undefined): ParsedQuery {
  const out: ParsedQuery = {};
  if (!raw) return out;
  // One pass over the pairs (every request with a query runs it): no intermediate arrays.
  for (let start = 0; start <= raw.length;) {
    let end = raw.indexOf('&', start);
    if (end < 0) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      const cut = eq < 0 || eq > end ? end : eq;
      const name = decode(raw.slice(start, cut));
      const value = cut === end ? '' : decode(raw.slice(cut + 1, end));
      if (name !== undefined && value !== undefined && !FORBIDDEN.has(name)) {
        const had = out[name];
        out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
      }
    }
    start = end + 1;
  }
  return out;
}

/**
 * A 400 `malformed_query` for invalid percent-encoding (`%C0%AE`, a lone `%`)
 * or a prototype-named parameter, never a silent U+FFFD; undefined when fine.
 */
export function queryProblem(raw: string): ProblemException | undefined {
  // Only a %-escape can be invalid, and only a name with "proto"/"constructor" can be forbidden.
  if (raw === '' || !SUSPECT.test(raw)) return undefined;
  for (const { pair, name, value } of pairs(raw)) {
    const detail =
      name === undefined || value === undefined
        ? `"${pair.slice(0, 60)}" is not valid percent-encoded UTF-8`
        : FORBIDDEN.has(name)
          ? `the parameter name "${name}" is not allowed`
          : undefined;
    if (detail) {
      return ProblemException.fast(400, 'malformed_query', 'Query string could not be parsed', {
        detail,
      });
    }
  }
  return undefined;
}

/** The query part of a raw request URL ('' when none). */
export function queryOf(url: string | undefined): string {
  const q = url?.indexOf('?') ?? -1;
  return q < 0 ? '' : url!.slice(q + 1);
}

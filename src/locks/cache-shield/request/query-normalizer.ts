/**
 * A helper for key sources: the cache-key form of a text query — trimmed,
 * Unicode NFKC, lower case, whitespace runs collapsed to one space. A key
 * source may use it only where its tokenizer folds at least as much (then
 * two queries with one key always have the same terms and the same answer;
 * search checks this with a property test).
 *
 * Bloom lookups do NOT use this: a key source gives the keys exactly as the
 * product indexed them (search: its own `tokenize()`).
 */
export function normalizeQuery(raw: string): string {
  return raw.trim().normalize('NFKC').toLowerCase().replace(WHITESPACE, ' ').trim();
}

const WHITESPACE = /\s+/gu;

/** Length in code points, counting only as far as `limit` + 1. */
export function codePointsOver(s: string, limit: number): boolean {
  if (s.length <= limit) return false;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    if (++n > limit) return true;
  }
  return false;
}

/**
 * The cache-key form of a search query: trimmed, Unicode NFKC, lower case
 * (the same case mapping as the search tokenizer, so two queries with one
 * key always have the same terms and the same answer), whitespace runs
 * collapsed to one space.
 *
 * Bloom lookups do NOT use this: they use the search backend's own
 * `tokenize()`, so a term is looked up exactly as it was indexed.
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

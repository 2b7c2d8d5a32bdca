/**
 * The one tokenizer of the search backends: used to index and to query, by
 * SQLite and PostgreSQL alike, so that "a query term missing from the
 * vocabulary ⇒ no result" holds exactly (the cache shield relies on it).
 *
 * Steps: Unicode NFKC, lower case, diacritics stripped (NFD, then every
 * combining mark removed, then NFC so that e.g. Hangul syllables stay
 * composed), split on anything that is not a letter or a digit, empty
 * tokens dropped, each token cut to {@link MAX_TOKEN_CHARS} code points.
 */

/** Longest token, in code points: keeps every term far below PostgreSQL's 2047-byte lexeme limit. */
export const MAX_TOKEN_CHARS = 128;

/** Bump when the output of `tokenize()` changes: stored indexes built with another version are rebuilt. */
export const TOKENIZER_VERSION = 1;

const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/** Splits text into search terms (may repeat; see {@link uniqueTerms}). */
export function tokenize(text: string): string[] {
  const folded = text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(MARKS, '')
    .normalize('NFC');
  const out: string[] = [];
  for (const raw of folded.split(SEPARATORS)) {
    if (raw.length === 0) continue;
    out.push(raw.length > MAX_TOKEN_CHARS ? cut(raw) : raw);
  }
  return out;
}

/** The distinct terms of some texts, in first-seen order. */
export function uniqueTerms(...texts: string[]): string[] {
  const seen = new Set<string>();
  for (const t of texts) for (const term of tokenize(t)) seen.add(term);
  return [...seen];
}

function cut(token: string): string {
  const points = Array.from(token);
  return points.length > MAX_TOKEN_CHARS ? points.slice(0, MAX_TOKEN_CHARS).join('') : token;
}

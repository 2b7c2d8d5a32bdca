/**
 * The demo model's tokenizer for counting and streaming: a token is a run of
 * word characters or one other non-space character, together with the
 * whitespace before it, so the pieces joined give back the text exactly
 * (trailing whitespace aside). Cheaper than wink-nlp, close to its counts.
 */
const PIECE = /\s*(?:[\p{L}\p{N}_]+|\S)/gu;

export function tokenPieces(text: string): string[] {
  return text.match(PIECE) ?? [];
}

/** Number of tokens in `text` (same rule as tokenPieces, without building them). */
export function countTokens(text: string): number {
  let n = 0;
  PIECE.lastIndex = 0;
  while (PIECE.exec(text) !== null) n++;
  return n;
}

import { describe, expect, it } from 'vitest';
import { countTokens, tokenPieces } from './token-pieces.js';

describe(tokenPieces.name, () => {
  it('should split words and punctuation, keeping the space before each', () => {
    expect(tokenPieces('Hello, wörld! 42x  ok')).toEqual([
      'Hello',
      ',',
      ' wörld',
      '!',
      ' 42x',
      '  ok',
    ]);
  });

  it('should give back the text when joined', () => {
    const text = 'Its tone is positive (sentiment +0.37).\nKey words: love, paris.';
    expect(tokenPieces(text).join('')).toBe(text);
  });

  it('should count as many tokens as it makes pieces', () => {
    for (const t of ['', '   ', 'a', 'one two, three!', '😀 emoji $300'])
      expect(countTokens(t)).toBe(tokenPieces(t).length);
  });
});

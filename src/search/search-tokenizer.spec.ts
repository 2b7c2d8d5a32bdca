import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_CHARS, tokenize, uniqueTerms } from './search-tokenizer.js';

describe(tokenize.name, () => {
  it('should lower-case and split on anything that is not a letter or a digit', () => {
    expect(tokenize('New-York, NY 10001!')).toEqual(['new', 'york', 'ny', '10001']);
  });

  it('should apply NFKC so compatibility forms match their plain letters', () => {
    expect(tokenize('ＰＡＲＩＳ')).toEqual(['paris']);
    expect(tokenize('ﬁnland')).toEqual(['finland']);
    expect(tokenize('Ⅻ²')).toEqual(['xii2']);
  });

  it('should strip diacritics whether they come precomposed or combining', () => {
    expect(tokenize('São Paulo')).toEqual(['sao', 'paulo']);
    expect(tokenize('Sa\u0303o')).toEqual(['sao']);
    expect(tokenize('İstanbul Zürich Kraków')).toEqual(['istanbul', 'zurich', 'krakow']);
  });

  it('should keep scripts without case and keep Hangul syllables composed', () => {
    expect(tokenize('東京 서울 Москва')).toEqual(['東京', '서울', 'москва']);
  });

  it('should drop empty tokens', () => {
    expect(tokenize('  --  ')).toEqual([]);
    expect(tokenize('')).toEqual([]);
  });

  it('should cut very long tokens to the maximum length in code points', () => {
    const long = '𝒜'.repeat(MAX_TOKEN_CHARS + 10);
    const [token] = tokenize(long);
    expect(Array.from(token!)).toHaveLength(MAX_TOKEN_CHARS);
  });

  it('should give the same terms when its own output is tokenized again (index text is pre-tokenised)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const terms = tokenize(s);
        expect(tokenize(terms.join(' '))).toEqual(terms);
      }),
      { numRuns: 20_000 },
    );
  });

  it('should only ever produce tokens of letters and digits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (s) => {
        for (const t of tokenize(s)) expect(t).toMatch(/^[\p{L}\p{N}]+$/u);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe(uniqueTerms.name, () => {
  it('should return each term once across several texts', () => {
    expect(uniqueTerms('Paris', 'Paris FR', 'fr')).toEqual(['paris', 'fr']);
  });
});

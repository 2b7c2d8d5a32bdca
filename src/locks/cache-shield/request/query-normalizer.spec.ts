import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../search/search-tokenizer.js';
import { codePointsOver, normalizeQuery } from './query-normalizer.js';

const TRICKY = [
  'ﬁ',
  'Ⅻ',
  'İ',
  'ß',
  'ẞ',
  'Σ',
  'ς',
  'ΟΔΟΣ',
  '\u00a0',
  '\u3000',
  '\u2028',
  'e\u0301',
  'é',
  'Å',
  'Å',
  '①',
  'ｶ',
  'ﾞ',
  '가',
  '\u1100\u1161',
  'ǅ',
  '\ufdfa',
  '\t',
  '\n',
  ' ',
  '-',
  'K',
  'Ⓚ',
];

describe(normalizeQuery.name, () => {
  it('should trim, apply NFKC, lower-case and collapse whitespace', () => {
    expect(normalizeQuery('  New\u00a0\u00a0YORK\t ')).toBe('new york');
    expect(normalizeQuery('ﬁnal　Ⅻ')).toBe('final xii');
    expect(normalizeQuery('São  Paulo')).toBe('são paulo');
  });

  it('should give two queries one key only when the tokenizer gives them the same terms', () => {
    // tokenize(normalize(q)) = tokenize(q): a cached answer is the answer the backend would give.
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...TRICKY),
            fc.string({ unit: 'grapheme', maxLength: 6 }),
            fc.string({ unit: 'binary', maxLength: 4 }),
          ),
          { maxLength: 12 },
        ),
        (parts) => {
          const q = parts.join('');
          expect(tokenize(normalizeQuery(q))).toEqual(tokenize(q));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('should be idempotent', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 30 }),
        (q) => normalizeQuery(normalizeQuery(q)) === normalizeQuery(q),
      ),
      { numRuns: 1_000 },
    );
  });
});

describe(codePointsOver.name, () => {
  it('should count code points, not UTF-16 units', () => {
    expect(codePointsOver('😀😀', 2)).toBe(false);
    expect(codePointsOver('😀😀😀', 2)).toBe(true);
    expect(codePointsOver('abc', 3)).toBe(false);
    expect(codePointsOver('abcd', 3)).toBe(true);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointsOver, normalizeQuery } from './query-normalizer.js';

describe(normalizeQuery.name, () => {
  it('should trim, apply NFKC, lower-case and collapse whitespace', () => {
    expect(normalizeQuery('  New\u00a0\u00a0YORK\t ')).toBe('new york');
    expect(normalizeQuery('ﬁnal　Ⅻ')).toBe('final xii');
    expect(normalizeQuery('São  Paulo')).toBe('são paulo');
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

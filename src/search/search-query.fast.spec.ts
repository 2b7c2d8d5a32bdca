import { describe, expect, it } from 'vitest';
import { slowSearchQuery } from './search-key-sources.js';
import { SearchQueryDto } from './search-query.dto.js';
import { SLOW, fastSearchQuery } from './search-query.fast.js';

const Q = [
  'paris',
  ' paris ',
  '',
  '   ',
  'x'.repeat(256),
  ` ${'x'.repeat(256)} `,
  'é\u0301',
  '\u00a0new york\u2003',
  'a😀',
  'b\uFE0F',
  'x'.repeat(255) + '😀',
];
const NUMS = [
  undefined,
  '0',
  '1',
  '3',
  '10',
  '010',
  '100',
  '101',
  '10000',
  '10001',
  '-1',
  '2.5',
  '1e2',
  '0x10',
  ' 7',
  '',
  'abc',
  '999999999999999',
  '9999999999999999',
];

describe(fastSearchQuery.name, () => {
  it('should give the DTO validation’s own answer, or leave the case to it', () => {
    let decided = 0;
    for (const q of Q)
      for (const limit of NUMS)
        for (const offset of NUMS) {
          const query: Record<string, unknown> = { q };
          if (limit !== undefined) query.limit = limit;
          if (offset !== undefined) query.offset = offset;
          const fast = fastSearchQuery(query);
          const slow = slowSearchQuery(query);
          if (fast === SLOW) continue;
          decided++;
          expect(fast, JSON.stringify(query)).toEqual(slow);
          if (fast) expect(fast).toBeInstanceOf(SearchQueryDto);
        }
    expect(decided).toBeGreaterThan(Q.length * NUMS.length * NUMS.length * 0.6);
  });

  it('should leave unusual shapes to the DTO validation', () => {
    for (const query of [
      { q: 'a', other: 'x' },
      { q: ['a'] },
      { q: 'a', limit: ['1'] },
      { q: 'a', limit: 1 },
      { q: 'x'.repeat(257) },
      { q: 'a😀' },
    ])
      expect(fastSearchQuery(query)).toBe(SLOW);
  });

  it('should accept the plain hot-path query with its conversions', () => {
    expect(fastSearchQuery({ q: ' paris ', limit: '3' })).toEqual(
      Object.assign(new SearchQueryDto(), { q: 'paris', limit: 3, offset: 0 }),
    );
  });
});

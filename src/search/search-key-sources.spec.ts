import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProblemException } from '../common/problem.exception.js';
import type { AnyRequest } from '../http/http-context.js';
import { normalizeQuery } from '../locks/cache-shield/request/query-normalizer.js';
import { searchItemKeys, searchQueryKeys, validSearchQuery } from './search-key-sources.js';
import { tokenize } from './search-tokenizer.js';

/** The two routes' reads, with the query route's `maxQueryLength` at 20. */
const readQuery = (r: AnyRequest) => searchQueryKeys.read(r, 20);
const readId = (r: AnyRequest) => searchItemKeys.read(r, 512);
const req = (o: { query?: unknown; params?: unknown }) =>
  ({ headers: {}, method: 'GET', url: '/', ...o }) as unknown as AnyRequest;

describe('search key sources: read', () => {
  it('should read the search tokenizer terms and a cache key that ignores case and spacing', () => {
    const a = readQuery(req({ query: { q: '  Saint-Étienne  Saint ', limit: '5' } }));
    const b = readQuery(req({ query: { q: 'saint-étienne saint', limit: '5' } }));
    expect(a).toMatchObject({
      request: {
        filter: 'search-terms',
        keys: ['saint', 'etienne'],
        allowKey: 'saint-étienne saint',
      },
    });
    expect('request' in a && 'request' in b && a.request.cacheKey === b.request.cacheKey).toBe(
      true,
    );
    const c = readQuery(req({ query: { q: 'saint-étienne saint', limit: '6' } }));
    expect('request' in c && 'request' in a && c.request.cacheKey !== a.request.cacheKey).toBe(
      true,
    );
  });

  it('should stay out of the way of anything the route validates (repeated, missing, blank, odd types)', () => {
    for (const query of [
      {},
      { q: ['a', 'b'] },
      { q: '   ' },
      { q: 'a', limit: ['1', '2'] },
      { q: 'a', offset: { x: 1 } },
      { q: 5 },
    ]) {
      expect(readQuery(req({ query }))).toEqual({ skip: true });
    }
    expect(readQuery(req({}))).toEqual({ skip: true });
    expect(readId(req({ params: {} }))).toEqual({ skip: true });
  });

  it('should mark a query with no searchable term as matching nothing', () => {
    for (const q of ['🙂', '?!', '\u200b', '\u0301', '👍🏽 …']) {
      expect(readQuery(req({ query: { q } }))).toMatchObject({
        request: { keys: [], nothing: true },
      });
    }
    expect(readQuery(req({ query: { q: 'é!' } }))).toMatchObject({ request: { nothing: false } });
  });

  it('should report a query longer than the cap after normalisation', () => {
    expect(readQuery(req({ query: { q: 'x'.repeat(21) } }))).toEqual({ tooLong: 20 });
    expect(readQuery(req({ query: { q: `  ${'x'.repeat(20)}  ` } }))).toHaveProperty('request');
    // NFKC can lengthen a query: the cap applies to what is looked up.
    expect(readQuery(req({ query: { q: '\ufdfa\ufdfa' } }))).toEqual({ tooLong: 20 });
  });

  it('should read an id exactly as given', () => {
    expect(readId(req({ params: { id: 'AbC 1' } }))).toEqual({
      request: {
        filter: 'item-ids',
        keys: ['AbC 1'],
        cacheKey: 'AbC 1',
        allowKey: 'AbC 1',
      },
    });
  });
});

describe(validSearchQuery.name, () => {
  it('should accept what the route accepts, with its defaults and conversions', () => {
    expect(validSearchQuery({ q: ' paris ' })).toMatchObject({ q: 'paris', limit: 10, offset: 0 });
    expect(
      validSearchQuery({ q: 'paris', limit: '100', offset: '10000', other: 'ignored' }),
    ).toMatchObject({ q: 'paris', limit: 100, offset: 10_000 });
  });

  it('should refuse what the route refuses', () => {
    for (const q of [
      { q: 'x'.repeat(257) },
      { q: 'a', limit: '0' },
      { q: 'a', limit: '101' },
      { q: 'a', limit: 'abc' },
      { q: 'a', limit: '2.5' },
      { q: 'a', offset: '-1' },
      { q: 'a', offset: '10001' },
    ]) {
      expect(validSearchQuery(q)).toBeUndefined();
    }
  });
});

describe('search key sources: answers', () => {
  it("should answer a query with the route's empty page, or a cached page with this request's own text", () => {
    const read = readQuery(req({ query: { q: ' PARIS ', limit: '3' } }));
    const q = 'request' in read ? searchQueryKeys.accept(read.request) : undefined;
    expect(q).toMatchObject({ q: 'PARIS', limit: 3, offset: 0 });
    expect(searchQueryKeys.absent(q!, 'bloom-absent;v=1')).toEqual({
      query: 'PARIS',
      total: 0,
      items: [],
      limit: 3,
      offset: 0,
    });
    expect(searchQueryKeys.found(q!, { query: 'paris', total: 2 })).toEqual({
      query: 'PARIS',
      total: 2,
    });
    expect(searchQueryKeys.isEmpty({ total: 0 })).toBe(true);
    expect(searchQueryKeys.isEmpty({ total: 2 })).toBe(false);
    const refused = readQuery(req({ query: { q: 'paris', limit: '500' } }));
    expect('request' in refused && searchQueryKeys.accept(refused.request)).toBeUndefined();
  });

  it("should answer an id with the route's 404, marked as an answer and naming the reason", () => {
    const read = readId(req({ params: { id: 'nope' } }));
    const id = 'request' in read ? searchItemKeys.accept(read.request) : undefined;
    expect(id).toBe('nope');
    let thrown: unknown;
    try {
      searchItemKeys.absent(id!, 'null-cache');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({
      problem: { status: 404, error: 'item_not_found' },
      headers: { 'Rampart-Shield': 'null-cache' },
      answer: true,
    });
    expect(searchItemKeys.isEmptyError(thrown)).toBe(true);
    expect(searchItemKeys.isEmptyError(new ProblemException(503, 'search_unavailable', 'x'))).toBe(
      false,
    );
    expect(searchItemKeys.found(id!, { id: 'nope' })).toEqual({ id: 'nope' });
  });
});

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

describe('the query cache key', () => {
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
});

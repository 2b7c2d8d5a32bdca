import { describe, expect, it } from 'vitest';
import type { AnyRequest } from '../../../http/http-context.js';
import { compileSlice } from '../cache-shield.validate.js';
import { readRequest, validSearchQuery } from './shield-request.js';

const queryRoute = compileSlice({ mode: 'enforce', key: 'query', maxQueryLength: 20 });
const idRoute = compileSlice({ mode: 'enforce', key: 'id' });
const req = (o: { query?: unknown; params?: unknown }) =>
  ({ headers: {}, method: 'GET', url: '/', ...o }) as unknown as AnyRequest;

describe(readRequest.name, () => {
  it('should read the search tokenizer terms and a cache key that ignores case and spacing', () => {
    const a = readRequest(req({ query: { q: '  Saint-Étienne  Saint ', limit: '5' } }), queryRoute);
    const b = readRequest(req({ query: { q: 'saint-étienne saint', limit: '5' } }), queryRoute);
    expect(a).toMatchObject({
      request: {
        kind: 'query',
        filter: 'search-terms',
        keys: ['saint', 'etienne'],
        allowKey: 'saint-étienne saint',
      },
    });
    expect('request' in a && 'request' in b && a.request.cacheKey === b.request.cacheKey).toBe(
      true,
    );
    const c = readRequest(req({ query: { q: 'saint-étienne saint', limit: '6' } }), queryRoute);
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
      expect(readRequest(req({ query }), queryRoute)).toEqual({ skip: true });
    }
    expect(readRequest(req({}), queryRoute)).toEqual({ skip: true });
    expect(readRequest(req({ params: {} }), idRoute)).toEqual({ skip: true });
  });

  it('should report a query longer than the cap after normalisation', () => {
    expect(readRequest(req({ query: { q: 'x'.repeat(21) } }), queryRoute)).toEqual({ tooLong: 20 });
    expect(readRequest(req({ query: { q: `  ${'x'.repeat(20)}  ` } }), queryRoute)).toHaveProperty(
      'request',
    );
    // NFKC can lengthen a query: the cap applies to what is looked up.
    expect(readRequest(req({ query: { q: '\ufdfa\ufdfa' } }), queryRoute)).toEqual({ tooLong: 20 });
  });

  it('should read an id exactly as given', () => {
    expect(readRequest(req({ params: { id: 'AbC 1' } }), idRoute)).toEqual({
      request: {
        kind: 'id',
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

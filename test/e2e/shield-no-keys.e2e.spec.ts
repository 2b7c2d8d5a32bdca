/**
 * A search query with no searchable term (emoji, punctuation, zero-width or
 * combining marks only) can match nothing: the shield answers the route's
 * empty page itself (`Rampart-Shield: no-keys`) and the backend is never
 * called, on both adapters and both stores; a request the route would
 * refuse is still the route's 400.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { SEARCH_BACKEND, type SearchBackend } from '../../src/search/search-backend.interface.js';
import { tokenize } from '../../src/search/search-tokenizer.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

/** No rate limit in the way of 30 requests in a row; the rest of the shipped chain stays. */
function noRateLimit(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  policies.search!.locks.rateLimit = { mode: 'off' };
  return { ...c, policies };
}

/** 30 distinct queries that the search tokenizer turns into no term at all. */
function termlessQueries(): string[] {
  const kinds = [
    (i: number) => String.fromCodePoint(0x1f600 + i), // one emoji
    (i: number) => `${String.fromCodePoint(0x1f680 + i)}\u200d${String.fromCodePoint(0x2764)}`,
    (i: number) => '!?.,;:-'.slice(0, 1 + (i % 7)) + '#'.repeat(i), // punctuation only
    (i: number) => '\u200b'.repeat(i + 1), // zero-width spaces
    (i: number) => String.fromCodePoint(0x0300 + i), // a lone combining mark
  ];
  const out = kinds.flatMap((kind) => Array.from({ length: 6 }, (_, i) => kind(i)));
  return [...new Set(out)];
}

const STORES = [
  ['memory', () => ({})],
  ['redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('nok') })],
] as const;

describe.each(ADAPTERS.flatMap((a) => STORES.map(([s, env]) => [a, s, env] as const)))(
  'search queries with no searchable term (%s, %s store)',
  (adapter, store, env) => {
    let app: RunningApp;
    let backend: SearchBackend;
    const runs = it.skipIf(store === 'redis' && !redisUrl());

    beforeAll(async () => {
      if (store === 'redis' && !redisUrl()) return;
      app = await startApp({ HTTP_ADAPTER: adapter, ...env() }, { config: noRateLimit });
      await app.app.get(BloomService).ready;
      backend = app.app.get<SearchBackend>(SEARCH_BACKEND);
    });
    afterAll(() => app?.close());

    runs(
      'should answer 30 unique termless queries with an empty page, without the backend',
      async () => {
        const queries = termlessQueries();
        expect(queries).toHaveLength(30);
        expect(queries.every((q) => tokenize(q).length === 0)).toBe(true);
        const search = vi.spyOn(backend, 'search');
        for (const q of queries) {
          const res = await fetch(`${app.url}/v1/search?q=${encodeURIComponent(q)}&limit=5`);
          expect(res.status).toBe(200);
          expect(res.headers.get('rampart-shield')).toBe('no-keys');
          expect(await res.json()).toEqual({ query: q, total: 0, items: [], limit: 5, offset: 0 });
        }
        expect(search).toHaveBeenCalledTimes(0);
        search.mockRestore();
      },
    );

    runs('should leave a termless query the route refuses to the route', async () => {
      const res = await fetch(`${app.url}/v1/search?q=${encodeURIComponent('🙂')}&limit=500`);
      expect(res.status).toBe(400);
      expect(res.headers.get('rampart-shield')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'validation_failed' });
    });
  },
);

/**
 * Lock 3 over HTTP, on both adapters and both stores (memory; Redis): junk
 * keys answered from the Bloom filter without touching the backend, repeats
 * from the result and null caches, the kill switch and allowlist through
 * the admin API, one backend call for a burst of misses, and — on Redis —
 * two instances sharing builds and a Redis outage that fails no request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { SEARCH_BACKEND, type SearchBackend } from '../../src/search/search-backend.interface.js';
import { fixtureCorpus } from '../fixtures/search/fixture-corpus.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { startRedis } from '../support/redis-server.js';

interface Answer {
  status: number;
  shield: string | null;
  body: Record<string, unknown>;
}

async function get(app: RunningApp, path: string): Promise<Answer> {
  const res = await fetch(`${app.url}${path}`);
  return {
    status: res.status,
    shield: res.headers.get('rampart-shield'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

/** The shield alone in front of search: no rate limit (bursts of requests), nothing else in the way. */
function shieldOnly(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  for (const name of ['search', 'search-item']) {
    policies[name]!.locks.rateLimit = { mode: 'off' };
    policies[name]!.locks.circuitBreaker = { mode: 'off' };
  }
  return { ...c, policies };
}

async function started(
  env: Record<string, string>,
  config: (c: RampartConfig) => RampartConfig = shieldOnly,
): Promise<RunningApp> {
  const app = await startApp({ ADMIN_TOKEN, ...env }, { config });
  await app.app.get(BloomService).ready;
  return app;
}

function activeVersion(app: RunningApp, filter: string): number | undefined {
  return app.app.get(BloomService).filters.replica(filter).active?.info.version;
}

const STORES = [
  ['memory', () => ({})],
  // A generous command timeout: these cases are about the shield, not about a slow Redis on a busy machine.
  [
    'redis',
    () => ({
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('she'),
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    }),
  ],
] as const;
const CASES = ADAPTERS.flatMap((adapter) =>
  STORES.map(([store, env]) => [adapter, store, env] as const),
);

describe.each(CASES)('cache shield over HTTP (%s, %s store)', (adapter, store, env) => {
  let app: RunningApp;
  let admin: AdminClient;
  let backend: SearchBackend;

  beforeAll(async () => {
    if (store === 'redis' && !redisUrl()) return;
    app = await started({ HTTP_ADAPTER: adapter, ...env() });
    admin = new AdminClient(app);
    backend = app.app.get<SearchBackend>(SEARCH_BACKEND);
  });
  afterAll(() => app?.close());

  const spy = (method: 'search' | 'getById') => vi.spyOn(backend, method);
  const runs = it.skipIf(store === 'redis' && !redisUrl());

  runs(
    'should answer a junk query with an empty result at once, naming the build, without calling the backend',
    async () => {
      const search = spy('search');
      const a = await get(app, '/v1/search?q=paris%20qqxzvw&limit=5');
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ query: 'paris qqxzvw', total: 0, items: [], limit: 5, offset: 0 });
      expect(a.shield).toBe(`bloom-absent;v=${activeVersion(app, 'search-terms')}`);
      expect(search).not.toHaveBeenCalled();
      search.mockRestore();
    },
  );

  runs(
    'should answer a real query from the backend, then its repeat from the result cache',
    async () => {
      const search = spy('search');
      const first = await get(app, '/v1/search?q=lyon');
      expect(first.status).toBe(200);
      expect(first.shield).toBeNull();
      expect(first.body.total).toBeGreaterThan(0);
      const again = await get(app, '/v1/search?q=%20LYON%20');
      expect(again.shield).toBe('cache-hit');
      expect(again.body).toEqual({ ...first.body, query: 'LYON' });
      expect(search).toHaveBeenCalledOnce();
      search.mockRestore();
    },
  );

  runs('should keep an empty answer in the null cache', async () => {
    const search = spy('search');
    expect((await get(app, '/v1/search?q=paris%20tokyo')).body).toMatchObject({
      total: 0,
      items: [],
    });
    const again = await get(app, '/v1/search?q=paris%20tokyo');
    expect(again.shield).toBe('null-cache');
    expect(again.body).toMatchObject({ query: 'paris tokyo', total: 0, items: [] });
    expect(search).toHaveBeenCalledOnce();
    search.mockRestore();
  });

  runs(
    'should answer an unknown id 404 at once and a known one from the cache on repeat',
    async () => {
      const getById = spy('getById');
      const absent = await get(app, '/v1/search/items/no-such-city-0');
      expect(absent.status).toBe(404);
      expect(absent.body).toMatchObject({ error: 'item_not_found' });
      expect(absent.shield).toBe(`bloom-absent;v=${activeVersion(app, 'item-ids')}`);
      expect(getById).not.toHaveBeenCalled();
      expect((await get(app, '/v1/search/items/2988507')).body).toMatchObject({ name: 'Paris' });
      const again = await get(app, '/v1/search/items/2988507');
      expect(again.shield).toBe('cache-hit');
      expect(getById).toHaveBeenCalledOnce();
      getById.mockRestore();
    },
  );

  runs(
    'should refuse a query too long after normalisation, and leave other invalid queries to the route',
    async () => {
      const long = await get(app, `/v1/search?q=${'xy'.repeat(300)}`);
      expect(long.status).toBe(400);
      expect(long.body).toMatchObject({ error: 'query_too_long', max_length: 512 });
      expect(long.shield).toBe('too-long');
      for (const path of [
        `/v1/search?q=${'q'.repeat(257)}`,
        '/v1/search?q=qqxzvw&limit=500',
        '/v1/search?q=a&q=b',
      ]) {
        expect((await get(app, path)).body).toMatchObject({
          status: 400,
          error: 'validation_failed',
        });
      }
    },
  );

  runs('should make one backend call for 100 concurrent requests of one new query', async () => {
    const search = spy('search');
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => get(app, '/v1/search?q=marseille')),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(
      answers.every(
        (a) =>
          a.status === 200 &&
          (a.shield === null || a.shield === 'coalesced' || a.shield === 'cache-hit'),
      ),
    ).toBe(true);
    expect(search).toHaveBeenCalledOnce();
    search.mockRestore();
  });

  runs(
    'should let every lookup through while the kill switch is on, and only allowlisted keys otherwise',
    async () => {
      const search = spy('search');
      const patch = (options: Record<string, unknown>) =>
        admin.call('PATCH', '/admin/policies/search/locks/cacheShield/options', { options });
      expect((await patch({ filter: 'off', nullTtlSeconds: 0 })).status).toBe(200);
      const off = await eventually(
        () => get(app, '/v1/search?q=qqkill'),
        (a) => a.shield === null,
      );
      expect(off.body).toMatchObject({ total: 0 });
      expect((await patch({ filter: 'on', allowlist: [{ key: ' QQallowed ' }] })).status).toBe(200);
      await eventually(
        () => get(app, '/v1/search?q=qqkill'),
        (a) => a.shield?.startsWith('bloom-absent') === true,
      );
      const calls = search.mock.calls.length;
      expect((await get(app, '/v1/search?q=qqallowed')).shield).toBeNull();
      expect((await get(app, '/v1/search?q=qqallowed')).shield).toBeNull();
      expect(search.mock.calls.length).toBe(calls + 2);
      expect((await patch({ allowlist: [], nullTtlSeconds: 10 })).status).toBe(200);
      search.mockRestore();
    },
  );

  runs('should only observe in shadow mode', async () => {
    const search = spy('search');
    expect(
      (await admin.call('PATCH', '/admin/policies/search/locks/cacheShield', { mode: 'shadow' }))
        .status,
    ).toBe(200);
    const a = await eventually(
      () => get(app, '/v1/search?q=qqshadow1'),
      (x) => x.shield === null,
    );
    expect(a.body).toMatchObject({ total: 0 });
    expect(search).toHaveBeenCalled();
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(
      /rampart_shield_interceptions_total\{policy="search",reason="bloom-absent",mode="shadow"\} [1-9]/,
    );
    // The backend agreed with every "absent" it was asked to check, and the filter is as full as sized.
    expect(metrics).not.toMatch(/rampart_shield_bloom_false_negatives_total\{[^}]*\} [1-9]/);
    expect(metrics).toMatch(/rampart_shield_bloom_fill_ratio\{filter="search-terms"\} 0\.[45]\d*/);
    expect(
      (await admin.call('PATCH', '/admin/policies/search/locks/cacheShield', { mode: 'enforce' }))
        .status,
    ).toBe(200);
    search.mockRestore();
  });

  runs('should show, rebuild and roll back the filters through the admin API', async () => {
    const status = await admin.get<{
      filters: { name: string; active: { version: number; items: number; measuredFp: number } }[];
    }>('/admin/bloom');
    expect(status.body.filters.map((f) => f.name)).toEqual(['search-terms', 'item-ids']);
    const before = activeVersion(app, 'search-terms')!;
    const rebuilt = await admin.call<{ filters: { active: { version: number } }[] }>(
      'POST',
      '/admin/bloom/rebuild',
      { filter: 'search-terms' },
    );
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.filters[0]!.active.version).toBe(before + 1);
    expect((await get(app, '/v1/search?q=qqafter')).shield).toBe(`bloom-absent;v=${before + 1}`);
    const back = await admin.call<{ filters: { active: { version: number } }[] }>(
      'POST',
      '/admin/bloom/rollback',
      { filter: 'search-terms' },
    );
    expect(back.body.filters[0]!.active.version).toBe(before);
    expect((await get(app, '/v1/search?q=qqback')).shield).toBe(`bloom-absent;v=${before}`);
  });
});

describe.skipIf(!redisUrl())('two instances sharing the shield through Redis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-shield-two-'));
  const emptyIndex = (c: RampartConfig) =>
    shieldOnly({ ...c, sections: { ...c.sections, search: { seed: 'none' } } });
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    const env = {
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('sh2'),
      SEARCH_SQLITE_PATH: join(dir, 'shared.sqlite'),
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    };
    a = await started(env, emptyIndex);
    await a.app.get<SearchBackend>(SEARCH_BACKEND).add(fixtureCorpus());
    b = await started({ ...env, HTTP_ADAPTER: 'fastify' }, emptyIndex);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should build once and let the second instance load that build', async () => {
    expect(activeVersion(b, 'search-terms')).toBe(activeVersion(a, 'search-terms'));
    const builds = async (app: RunningApp) =>
      (await (await fetch(`${app.url}/metrics`)).text()).match(
        /rampart_shield_bloom_builds_total\{filter="search-terms",result="activated"\} (\d+)/,
      )?.[1];
    expect(await builds(a)).toBe('1');
    expect(await builds(b)).toBeUndefined();
    expect((await get(b, '/v1/search?q=paris')).body.total).toBe(4);
  });

  it('should make an item added on one instance findable on the other at once', async () => {
    await a.app.get<SearchBackend>(SEARCH_BACKEND).add([{ id: 'two-1', name: 'Zyxwvut Springs' }]);
    const found = await get(b, '/v1/search?q=zyxwvut');
    expect(found.shield).toBeNull();
    expect(found.body).toMatchObject({ total: 1, items: [{ id: 'two-1' }] });
    expect((await get(b, '/v1/search/items/two-1')).status).toBe(200);
  });

  it('should take a rebuild made on one instance and a rollback made on the other everywhere', async () => {
    const v = activeVersion(a, 'item-ids')!;
    const rebuilt = await new AdminClient(a).call('POST', '/admin/bloom/rebuild', {
      filter: 'item-ids',
    });
    expect(rebuilt.status).toBe(200);
    await eventually(
      async () => activeVersion(b, 'item-ids'),
      (x) => x === v + 1,
    );
    expect((await get(b, '/v1/search/items/nope-1')).shield).toBe(`bloom-absent;v=${v + 1}`);
    expect(
      (await new AdminClient(b).call('POST', '/admin/bloom/rollback', { filter: 'item-ids' }))
        .status,
    ).toBe(200);
    await eventually(
      async () => activeVersion(a, 'item-ids'),
      (x) => x === v,
    );
    expect((await get(a, '/v1/search/items/two-1')).status).toBe(200);
  });
});

describe.skipIf(!canStartRedis()).each(ADAPTERS)(
  'cache shield while Redis is down (%s)',
  (adapter) => {
    it('should keep answering from the in-memory filter and the backend, failing no request', async () => {
      const redis = await startRedis();
      const app = await started({
        HTTP_ADAPTER: adapter,
        REDIS_URL: redis.url,
        RAMPART_ENV: uniqueEnv('shd'),
        REDIS_COMMAND_TIMEOUT_MS: '200',
      });
      try {
        expect((await get(app, '/v1/search?q=lyon')).status).toBe(200);
        await redis.kill();
        const junk = await get(app, '/v1/search?q=qqdown');
        expect(junk).toMatchObject({
          status: 200,
          shield: `bloom-absent;v=${activeVersion(app, 'search-terms')}`,
          body: { total: 0 },
        });
        const real = await get(app, '/v1/search?q=lyon');
        expect(real.status).toBe(200);
        expect(real.body.total).toBeGreaterThan(0);
        expect((await get(app, '/v1/search/items/2988507')).status).toBe(200);
        expect((await get(app, '/v1/search/items/no-such-1')).status).toBe(404);
        await redis.start();
        // Back on Redis: the result cache serves repeats again (and every connection has settled before the app closes).
        await eventually(
          () => get(app, '/v1/search?q=nantes'),
          (a) => a.shield === 'cache-hit',
          15_000,
          100,
        );
      } finally {
        await app.close();
        await redis.stop();
      }
    });
  },
);

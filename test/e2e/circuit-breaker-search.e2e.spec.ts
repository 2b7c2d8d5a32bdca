/**
 * Lock 4 around the real search backend, over HTTP on both adapters.
 * PostgreSQL is made slow for real: another connection holds
 * `LOCK TABLE rampart_search_items IN ACCESS EXCLUSIVE MODE`, so queries
 * block on the server until the breaker aborts them. The stale-result part
 * runs on SQLite with the real cache shield in front of the breaker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LockSlice } from '../../src/config/policy.types.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { SEARCH_BACKEND, SearchBackend } from '../../src/search/search-backend.interface.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { ADMIN_TOKEN, AdminClient, READY_DETAIL, eventually } from '../support/admin-client.js';
import { fixtureCorpus } from '../fixtures/search/fixture-corpus.js';
import { createSchema, postgresAvailable } from '../fixtures/search/postgres.js';

const OFF = { mode: 'off' as const };
const BREAKER = {
  mode: 'enforce' as const,
  backend: 'search',
  stale: false,
  timeoutMs: 500,
  errorThresholdPercentage: 50,
  volumeThreshold: 3,
  rollingCountTimeoutMs: 60_000,
  rollingCountBuckets: 6,
  resetTimeoutMs: 1_500,
  resetJitter: 0,
  capacity: 20,
  halfOpenProbes: 1,
  rampPercents: [],
  rampMs: 0,
};

function searchPolicies(
  c: RampartConfig,
  cacheShield: LockSlice = OFF,
  stale = false,
): RampartConfig {
  const locks = (breaker: LockSlice) => ({
    signature: OFF,
    rateLimit: OFF,
    cacheShield,
    circuitBreaker: breaker,
  });
  return {
    ...c,
    sections: { ...c.sections, search: { seed: 'none' } },
    policies: {
      ...c.policies,
      search: { ...c.policies.search!, locks: locks({ ...BREAKER, stale }) },
      'search-item': {
        ...c.policies['search-item']!,
        locks: { ...locks({ mode: 'enforce', backend: 'search', stale }), cacheShield: OFF },
      },
    },
  };
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function get(app: RunningApp, path: string): Promise<Answer> {
  const res = await fetch(`${app.url}${path}`);
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  };
}

const withPostgres = await postgresAvailable();

describe.skipIf(!withPostgres).each(ADAPTERS)(
  'circuit breaker around search on PostgreSQL (%s)',
  (adapter) => {
    let schema: Awaited<ReturnType<typeof createSchema>>;
    let app: RunningApp;
    let admin: AdminClient;
    let locker: pg.Client;
    let watcher: pg.Client;

    /** Another session takes the items table; every search query now waits on the server. */
    async function lockItems(): Promise<void> {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE rampart_search_items IN ACCESS EXCLUSIVE MODE');
    }
    const unlockItems = (): Promise<unknown> => locker.query('COMMIT');

    /**
     * Route queries of the app (search page, item by id) waiting on our lock, seen from the server.
     * Background reads of other parts (the cache shield's revision poll) are not the breaker's calls.
     */
    async function blocked(): Promise<number> {
      const r = await watcher.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'rampart-search' AND $1 = ANY(pg_blocking_pids(pid))
         AND (query LIKE '%tsquery%' OR query LIKE '%WHERE id = $1%')`,
        [(locker as unknown as { processID: number }).processID],
      );
      return r.rows[0]!.n;
    }

    beforeAll(async () => {
      schema = await createSchema();
      app = await startApp(
        {
          HTTP_ADAPTER: adapter,
          SEARCH_BACKEND: 'postgres',
          DATABASE_URL: schema.url,
          ADMIN_TOKEN,
        },
        { config: (c) => searchPolicies(c) },
      );
      await app.app.get<SearchBackend>(SEARCH_BACKEND).add(fixtureCorpus());
      admin = new AdminClient(app);
      locker = new pg.Client(schema.url);
      watcher = new pg.Client(schema.url);
      await locker.connect();
      await watcher.connect();
    });
    afterAll(async () => {
      await locker?.query('ROLLBACK').catch(() => undefined);
      await locker?.end();
      await watcher?.end();
      await app?.close();
      await schema?.drop();
    });
    beforeEach(async () => {
      expect((await admin.call('POST', '/admin/breakers/search/reset')).status).toBe(200);
    });

    it('should abort a query blocked on the server: 504 backend_timeout, and the statement is cancelled', async () => {
      await lockItems();
      try {
        const a = await get(app, '/v1/search?q=paris');
        expect(a.status).toBe(504);
        expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(a.body).toMatchObject({ error: 'backend_timeout', backend: 'search' });
        expect(await eventually(blocked, (n) => n === 0)).toBe(0);
      } finally {
        await unlockItems();
      }
      expect((await get(app, '/v1/search?q=paris')).status).toBe(200);
    });

    it('should open after the threshold, refuse both search routes without querying, probe and close', async () => {
      await lockItems();
      try {
        for (let i = 0; i < BREAKER.volumeThreshold; i++)
          expect((await get(app, `/v1/search?q=paris&offset=${i}`)).status).toBe(504);
        const asked = Date.now();
        const status = await admin.get<{
          breakers: {
            name: string;
            phase: string;
            policies: string[];
            stats: Record<string, number>;
          }[];
        }>('/admin/breakers');
        const search = status.body.breakers.find((b) => b.name === 'search')!;
        expect(search).toMatchObject({ phase: 'open', policies: ['search', 'search-item'] });
        const probeDue = asked + search.stats.nextProbeInMs!;
        let refused = 0;
        for (const path of [
          '/v1/search?q=paris',
          '/v1/search/items/2988507',
          '/v1/search?q=london',
        ]) {
          if (Date.now() >= probeDue - 300) break; // jitter 0: the probe is due exactly then; keep clear of it
          const a = await get(app, path);
          refused++;
          expect(a.status).toBe(503);
          expect(a.headers.get('retry-after')).toMatch(/^[12]$/);
          expect(a.body).toMatchObject({ error: 'circuit_open', backend: 'search', state: 'open' });
        }
        expect(refused).toBeGreaterThan(0);
        // The timed-out queries were cancelled, and the refused calls never reached PostgreSQL.
        expect(await eventually(blocked, (n) => n === 0)).toBe(0);
      } finally {
        await unlockItems();
      }
      const probe = await eventually(
        () => get(app, '/v1/search/items/2988507'),
        (a) => a.status !== 503,
        5_000,
        50,
      );
      expect(probe.status).toBe(200);
      expect(probe.body).toMatchObject({ id: '2988507', name: 'Paris' });
      expect((await get(app, '/v1/search?q=paris')).status).toBe(200);
      const ready = (await (await fetch(`${app.url}/health/ready`, READY_DETAIL)).json()) as {
        details: Record<string, Record<string, unknown>>;
      };
      expect(ready.details['breaker:search']).toMatchObject({
        status: 'up',
        phase: 'closed',
        policies: ['search', 'search-item'],
      });
    });

    it('should not count a 404 or a validation error against the backend', async () => {
      for (let i = 0; i < 10; i++)
        expect((await get(app, '/v1/search/items/no-such-item')).status).toBe(404);
      for (let i = 0; i < 10; i++) expect((await get(app, '/v1/search?limit=0')).status).toBe(400);
      expect((await get(app, '/v1/search?q=paris')).status).toBe(200);
    });

    it('should apply a force set on one policy to the backend breaker both policies share', async () => {
      expect(
        (await admin.call('PUT', '/admin/breakers/search-item/force', { state: 'open' })).status,
      ).toBe(200);
      expect((await get(app, '/v1/search?q=paris')).body).toMatchObject({
        error: 'circuit_open',
        state: 'forced_open',
      });
      expect((await get(app, '/v1/search/items/2988507')).body).toMatchObject({
        error: 'circuit_open',
        state: 'forced_open',
      });
      expect((await admin.call('DELETE', '/admin/breakers/search-item/force')).status).toBe(200);
      expect((await get(app, '/v1/search?q=paris')).status).toBe(200);
    });
  },
);

describe.each(ADAPTERS)(
  'circuit breaker serving stale results from the cache shield (%s)',
  (adapter) => {
    const dir = mkdtempSync(join(tmpdir(), 'rampart-breaker-stale-'));
    const SHIELD: LockSlice = {
      mode: 'enforce',
      key: 'query',
      filter: 'off',
      allowlist: [],
      resultTtlSeconds: 1,
      nullTtlSeconds: 1,
      staleTtlSeconds: 600,
      jitter: 0,
    };
    let withStale: RunningApp;
    let without: RunningApp;

    beforeAll(async () => {
      const env = { HTTP_ADAPTER: adapter, ADMIN_TOKEN };
      withStale = await startApp(
        { ...env, SEARCH_SQLITE_PATH: join(dir, 'a.sqlite') },
        { config: (c) => searchPolicies(c, SHIELD, true) },
      );
      without = await startApp(
        { ...env, SEARCH_SQLITE_PATH: join(dir, 'b.sqlite') },
        { config: (c) => searchPolicies(c, SHIELD, false) },
      );
      for (const app of [withStale, without])
        await app.app.get<SearchBackend>(SEARCH_BACKEND).add(fixtureCorpus());
    });
    afterAll(async () => {
      await withStale?.close();
      await without?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('should answer the last cached result, saying so in a header, while the circuit is open — and 503 where none or not allowed', async () => {
      for (const app of [withStale, without]) {
        expect((await get(app, '/v1/search?q=paris')).status).toBe(200);
        expect(
          (
            await new AdminClient(app).call('PUT', '/admin/breakers/search/force', {
              state: 'open',
            })
          ).status,
        ).toBe(200);
      }
      const fresh = await get(withStale, '/v1/search?q=paris');
      // Past the fresh TTL the shield calls on, with its last answer ready for the breaker.
      const stale = await eventually(
        () => get(withStale, '/v1/search?q=paris'),
        (a) => a.headers.get('rampart-breaker') !== null,
        5_000,
        100,
      );
      expect(stale.status).toBe(200);
      expect(stale.headers.get('rampart-breaker')).toBe('forced_open;stale');
      expect(stale.body).toEqual(fresh.body);
      expect((await get(withStale, '/v1/search?q=london')).body).toMatchObject({
        error: 'circuit_open',
      });
      await new Promise((r) => setTimeout(r, 1_100));
      const refused = await get(without, '/v1/search?q=paris');
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: 'circuit_open', state: 'forced_open' });
    });
  },
);

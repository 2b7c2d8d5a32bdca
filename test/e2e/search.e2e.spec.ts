import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READY_DETAIL } from '../support/admin-client.js';
import {
  SEARCH_BACKEND,
  SearchBackend,
  SearchItem,
} from '../../src/search/search-backend.interface.js';
import { tokenize } from '../../src/search/search-tokenizer.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { fixtureCorpus } from '../fixtures/search/fixture-corpus.js';
import { createSchema, postgresAvailable } from '../fixtures/search/postgres.js';

// One SQLite index of the full cities corpus for this run, built by the first app and reused by the second.
const dir = mkdtempSync(join(tmpdir(), 'rampart-search-e2e-'));
const SQLITE_PATH = join(dir, 'search.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  status: number;
  type: string;
  body: Record<string, unknown>;
}

async function get(app: RunningApp, path: string, init?: RequestInit): Promise<Answer> {
  const res = await fetch(`${app.url}${path}`, init);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    body: (await res.json()) as Record<string, unknown>,
  };
}

function items(a: Answer): SearchItem[] {
  return a.body.items as SearchItem[];
}

function expectProblem(a: Answer, status: number, error: string): void {
  expect(a.status).toBe(status);
  expect(a.type).toMatch(/^application\/problem\+json/);
  expect(a.body).toMatchObject({ status, error });
}

describe.each(ADAPTERS)('Search API over HTTP on SQLite and the cities corpus (%s)', (adapter) => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter, ADMIN_TOKEN, SEARCH_SQLITE_PATH: SQLITE_PATH });
  });
  afterAll(() => app?.close());

  it('should find Paris, FR first for q=paris', async () => {
    const a = await get(app, '/v1/search?q=paris');
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ query: 'paris', limit: 10, offset: 0 });
    expect(a.body.total).toBeGreaterThanOrEqual(10);
    expect(items(a)[0]).toMatchObject({ id: '2988507', name: 'Paris', country: 'FR' });
    expect(items(a).every((i) => tokenize(i.name).includes('paris'))).toBe(true);
  });

  it('should match every term of q=new york and rank New York City first', async () => {
    const a = await get(app, '/v1/search?q=%20New%20York%20');
    expect(a.status).toBe(200);
    expect(a.body.query).toBe('New York');
    expect(items(a)[0]).toMatchObject({ id: '5128581', name: 'New York City', country: 'US' });
    expect(
      items(a).every((i) => tokenize(i.name).includes('new') && tokenize(i.name).includes('york')),
    ).toBe(true);
  });

  it('should page with limit and offset', async () => {
    const all = await get(app, '/v1/search?q=london&limit=6');
    const second = await get(app, '/v1/search?q=london&limit=3&offset=3');
    expect(second.body).toMatchObject({ limit: 3, offset: 3, total: all.body.total });
    expect(items(second).map((i) => i.id)).toEqual(
      items(all)
        .slice(3, 6)
        .map((i) => i.id),
    );
  });

  it('should answer an empty page when one term is in no item', async () => {
    const a = await get(app, '/v1/search?q=paris%20qqxzv');
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ total: 0, items: [] });
  });

  it('should return one item by id', async () => {
    const a = await get(app, '/v1/search/items/2988507');
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      id: '2988507',
      name: 'Paris',
      country: 'FR',
      fields: { featureCode: 'PPLC' },
    });
    expect(a.body.population).toBeGreaterThan(2_000_000);
  });

  it('should answer 404 item_not_found for an unknown id', async () => {
    expectProblem(await get(app, '/v1/search/items/no-such-city'), 404, 'item_not_found');
    expectProblem(await get(app, `/v1/search/items/${'9'.repeat(90)}`), 404, 'item_not_found');
  });

  it('should answer 400 when q is missing, blank or longer than 256 characters', async () => {
    for (const path of [
      '/v1/search',
      '/v1/search?q=',
      '/v1/search?q=%20%20',
      `/v1/search?q=${'a'.repeat(257)}`,
      '/v1/search?q=a&q=b',
    ]) {
      const a = await get(app, path);
      expectProblem(a, 400, 'validation_failed');
      expect(String(a.body.detail)).toMatch(/\bq\b/);
    }
    expect((await get(app, `/v1/search?q=${'a'.repeat(256)}`)).status).toBe(200);
  });

  it('should answer 400 for a limit or offset out of range or not a whole number', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=2.5',
      'offset=-1',
      'offset=10001',
      'offset=x',
    ]) {
      const a = await get(app, `/v1/search?q=paris&${query}`);
      expectProblem(a, 400, 'validation_failed');
      expect(String(a.body.detail)).toMatch(query.startsWith('limit') ? /limit/ : /offset/);
    }
    expect((await get(app, '/v1/search?q=paris&limit=100&offset=10000')).body).toMatchObject({
      items: [],
      limit: 100,
      offset: 10000,
    });
  });

  it('should report the search backend in /health/ready once the filters are built', async () => {
    await app.app.get(BloomService).ready;
    const a = await get(app, '/health/ready', READY_DETAIL);
    expect(a.body).toMatchObject({ info: { search: { status: 'up', backend: 'sqlite' } } });
    expect((a.body.info as { search: { items: number } }).search.items).toBeGreaterThan(130_000);
  });

  it('should document both routes in the OpenAPI document', async () => {
    const doc = (await get(app, '/docs/openapi.json')).body as {
      paths: Record<string, { get?: { tags?: string[]; parameters?: { name: string }[] } }>;
    };
    expect(doc.paths['/v1/search']?.get?.tags).toContain('search');
    expect(doc.paths['/v1/search']?.get?.parameters?.map((p) => p.name).sort()).toEqual([
      'limit',
      'offset',
      'q',
    ]);
    expect(doc.paths['/v1/search/items/{id}']?.get?.tags).toContain('search');
  });
});

describe('Search backend lifecycle', () => {
  it('should close the backend when the app shuts down', async () => {
    const app = await startApp({ SEARCH_SQLITE_PATH: SQLITE_PATH });
    const backend = app.app.get<SearchBackend>(SEARCH_BACKEND);
    await expect(backend.ping()).resolves.toBeUndefined();
    await app.close();
    await expect(backend.ping()).rejects.toThrow('closed');
  });
});

const withPostgres = await postgresAvailable();

describe.skipIf(!withPostgres)('Search API over HTTP on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof createSchema>>;
  let apps: RunningApp[] = [];

  beforeAll(async () => {
    schema = await createSchema();
    for (const adapter of ADAPTERS) {
      const app = await startApp(
        {
          HTTP_ADAPTER: adapter,
          ADMIN_TOKEN,
          SEARCH_BACKEND: 'postgres',
          DATABASE_URL: schema.url,
        },
        { config: (c) => ({ ...c, sections: { ...c.sections, search: { seed: 'none' } } }) },
      );
      apps.push(app);
    }
    await apps[0]!.app.get<SearchBackend>(SEARCH_BACKEND).add(fixtureCorpus());
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    apps = [];
    await schema?.drop();
  });

  it.each(ADAPTERS.map((adapter, i) => [adapter, i] as const))(
    'should search, fetch by id and answer 404 (%s)',
    async (_adapter, i) => {
      const app = apps[i]!;
      const a = await get(app, '/v1/search?q=PARIS&limit=2');
      expect(a.body).toMatchObject({ query: 'PARIS', total: 4, limit: 2, offset: 0 });
      expect(items(a).map((x) => x.id)).toEqual(['2988507', '4717560']);
      expect((await get(app, '/v1/search?q=sao%20paulo')).body).toMatchObject({
        total: 1,
        items: [{ id: '3448439', name: 'São Paulo' }],
      });
      expect((await get(app, '/v1/search/items/doc-%CE%B1')).body).toMatchObject({
        id: 'doc-α',
        fields: { size: 3 },
      });
      expectProblem(await get(app, '/v1/search/items/nope'), 404, 'item_not_found');
      expect((await get(app, '/health/ready', READY_DETAIL)).body).toMatchObject({
        info: { search: { status: 'up', backend: 'postgres' } },
      });
    },
  );
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIndexCli } from '../../src/search/index-cli.js';
import { PostgresSearchBackend } from '../../src/search/postgres-search.backend.js';
import type { SearchBackend } from '../../src/search/search-backend.interface.js';
import { SqliteSearchBackend } from '../../src/search/sqlite-search.backend.js';
import { collect } from '../fixtures/search/backend-targets.js';
import { createSchema, postgresAvailable } from '../fixtures/search/postgres.js';

const withPostgres = await postgresAvailable();
const dir = mkdtempSync(join(tmpdir(), 'rampart-index-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
function file(ext: string, text: string): string {
  const path = join(dir, `corpus-${++seq}.${ext}`);
  writeFileSync(path, text);
  return path;
}

async function run(
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runIndexCli(argv, {
    env: { LOG_LEVEL: 'silent', ...env },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err };
}

async function withSqlite<T>(path: string, f: (b: SearchBackend) => Promise<T>): Promise<T> {
  const b = await SqliteSearchBackend.open(path);
  try {
    return await f(b);
  } finally {
    await b.close();
  }
}

const JSONL = [
  '{"id":"p1","name":"Product One","category":"tools","population":3}',
  '{"id":"p2","name":"Second Product"',
  '',
  '{"id":"p3","name":"Third Thing","altNames":["Tertius"],"lat":100}',
  '{"id":"p4","name":"Fourth Product","altNames":"Quartus|Vierter"}',
  '{"name":"No id"}',
].join('\n');

describe(runIndexCli.name, () => {
  it('should load the good rows of a JSON Lines file into an empty SQLite index and report each bad line', async () => {
    const path = join(dir, 'a', 'search.sqlite');
    const src = file('jsonl', JSONL);
    const r = await run([src], { SEARCH_SQLITE_PATH: path });
    expect(r.code).toBe(0);
    expect(r.err).toEqual([
      expect.stringMatching(new RegExp(`^${src}:2: skipped: not valid JSON`)),
      `${src}:4: skipped: lat must be a number in -90..90 (got 100)`,
      `${src}:6: skipped: id is missing`,
    ]);
    expect(r.out.at(-1)).toMatch(
      /^loaded 2 items from .* into sqlite \(.*\) in \d+ ms; 3 bad rows skipped$/,
    );
    await withSqlite(path, async (b) => {
      // Started empty: the CLI never seeds the cities corpus.
      expect(await collect(b.ids())).toEqual(['p1', 'p4']);
      expect(await b.getById('p1')).toEqual({
        id: 'p1',
        name: 'Product One',
        population: 3,
        fields: { category: 'tools' },
      });
      expect((await b.search('vierter', 10, 0)).items.map((i) => i.id)).toEqual(['p4']);
    });
  });

  it('should load a CSV file by its header, upserting into what is there, and replace everything with --replace', async () => {
    const path = join(dir, 'b', 'search.sqlite');
    expect((await run([file('jsonl', JSONL)], { SEARCH_SQLITE_PATH: path })).code).toBe(0);
    const csv = file(
      'csv',
      'id,name,country,population,altNames,color\np1,"Product One, renewed",FR,10,,red\nc2,Café Crème,,,"Cafe|Coffee",\nc3,Too,Many,1,2,3,4\n',
    );
    const r = await run([csv], { SEARCH_SQLITE_PATH: path });
    expect(r.code).toBe(0);
    expect(r.err).toEqual([`${csv}:4: skipped: has 7 fields, the header has 6`]);
    await withSqlite(path, async (b) => {
      expect(await collect(b.ids())).toEqual(['c2', 'p1', 'p4']);
      expect(await b.getById('p1')).toEqual({
        id: 'p1',
        name: 'Product One, renewed',
        country: 'FR',
        population: 10,
        fields: { color: 'red' },
      });
      expect((await b.search('CREME coffee', 10, 0)).items.map((i) => i.id)).toEqual(['c2']);
    });
    expect((await run(['--replace', csv], { SEARCH_SQLITE_PATH: path })).code).toBe(0);
    await withSqlite(path, async (b) => expect(await collect(b.ids())).toEqual(['c2', 'p1']));
  });

  it('should exit 1 when nothing could be loaded, summing up past the first 50 bad rows', async () => {
    const src = file('jsonl', Array.from({ length: 60 }, (_, i) => `{"id":"x${i}"}`).join('\n'));
    const r = await run([src], { SEARCH_SQLITE_PATH: join(dir, 'c', 'search.sqlite') });
    expect(r.code).toBe(1);
    expect(r.err.filter((l) => l.includes('skipped: name is missing'))).toHaveLength(50);
    expect(r.err).toContain('… and 10 more bad rows');
    expect(r.err.at(-1)).toBe('nothing was loaded');
  });

  it('should leave the index alone when the CSV header is unusable, even with --replace', async () => {
    const path = join(dir, 'd', 'search.sqlite');
    await run([file('jsonl', JSONL)], { SEARCH_SQLITE_PATH: path });
    const r = await run(['--replace', file('csv', 'key,title\n1,x\n')], {
      SEARCH_SQLITE_PATH: path,
    });
    expect(r.code).toBe(1);
    expect(r.err[0]).toMatch(/header row \(line 1\) has no id or name column/);
    await withSqlite(path, async (b) => expect(await collect(b.ids())).toEqual(['p1', 'p4']));
  });

  it('should refuse bad usage, unknown file types, missing files and a bad configuration', async () => {
    const env = { SEARCH_SQLITE_PATH: join(dir, 'e', 'search.sqlite') };
    expect((await run([], env)).code).toBe(2);
    expect((await run(['a.jsonl', 'b.jsonl'], env)).code).toBe(2);
    expect(await run([file('json', '{}')], env)).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/unsupported file type ".json"/)],
    });
    expect(await run([join(dir, 'absent.csv')], env)).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/no such file/)],
    });
    expect(
      await run([file('csv', 'id,name\n')], { ...env, SEARCH_BACKEND: 'postgres' }),
    ).toMatchObject({
      code: 78,
      err: [expect.stringMatching(/SEARCH_BACKEND=postgres needs DATABASE_URL/)],
    });
  });

  it.skipIf(!withPostgres)('should load into PostgreSQL when SEARCH_BACKEND=postgres', async () => {
    const schema = await createSchema();
    try {
      const r = await run([file('jsonl', JSONL)], {
        SEARCH_BACKEND: 'postgres',
        DATABASE_URL: schema.url,
      });
      expect(r.code).toBe(0);
      expect(r.out.at(-1)).toMatch(
        /^loaded 2 items .* into postgres in \d+ ms; 3 bad rows skipped$/,
      );
      const b = await PostgresSearchBackend.open(schema.url);
      try {
        expect(await collect(b.ids())).toEqual(['p1', 'p4']);
        expect((await b.search('quartus product', 10, 0)).items.map((i) => i.id)).toEqual(['p4']);
      } finally {
        await b.close();
      }
    } finally {
      await schema.drop();
    }
  });
});

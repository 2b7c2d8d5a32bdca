// Search backends measured side by side in one run, against the built app
// (npm run build first): first-start indexing time and size of the SQLite
// file, then req/s and latency of GET /v1/search and /v1/search/items/:id on
// SQLite (express and fastify) and, when reachable, PostgreSQL (express).
// Every lock is off on the search routes here: this measures the backend.
//   node test/bench/search.bench.mjs        (BENCH_SECONDS=3 for a quick look)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, measure, startApp, summary, writeConfig } from './lib.mjs';

const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const OFF = {
  signature: { mode: 'off' },
  rateLimit: { mode: 'off' },
  cacheShield: { mode: 'off' },
  circuitBreaker: { mode: 'off' },
};
const CONFIG_FILE = writeConfig({
  policies: { search: { locks: OFF }, 'search-item': { locks: OFF } },
});

/** Small result (17 matches), large result (11k matches, sorted by population), by id. */
const CASES = [
  ['q=paris', '/v1/search?q=paris'],
  ['q=de (11k matches)', '/v1/search?q=de'],
  ['q=new york&offset=0', '/v1/search?q=new%20york'],
  ['items/:id', '/v1/search/items/2988507'],
];

async function firstStart(env) {
  const t0 = performance.now();
  const app = await startApp({ CONFIG_FILE, ...env });
  const ms = performance.now() - t0;
  await app.stop();
  const t1 = performance.now();
  const again = await startApp({ CONFIG_FILE, ...env });
  return { app: again, firstMs: Math.round(ms), secondMs: Math.round(performance.now() - t1) };
}

async function run(label, app) {
  const rows = [];
  for (const [name, path] of CASES) {
    rows.push({ backend: label, case: name, ...summary(await measure({ url: app.url + path })) });
  }
  return rows;
}

const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-search-'));
const file = join(dir, 'search.sqlite');
const rows = [];
const starts = [];
try {
  const sqlite = await firstStart({ SEARCH_SQLITE_PATH: file });
  starts.push({
    backend: 'sqlite',
    firstStartMs: sqlite.firstMs,
    secondStartMs: sqlite.secondMs,
    sizeMB: +(statSync(file).size / 1e6).toFixed(1),
  });
  rows.push(...(await run('sqlite/express', sqlite.app)));
  await sqlite.app.stop();
  const fast = await startApp({ CONFIG_FILE, SEARCH_SQLITE_PATH: file, HTTP_ADAPTER: 'fastify' });
  rows.push(...(await run('sqlite/fastify', fast)));
  await fast.stop();

  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  const pgUp = await admin.connect().then(
    () => true,
    () => false,
  );
  if (pgUp) {
    const schema = `rampart_bench_${process.pid}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const url = new URL(PG_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const pgApp = await firstStart({ SEARCH_BACKEND: 'postgres', DATABASE_URL: url.toString() });
      const size = await admin.query(
        `SELECT sum(pg_total_relation_size(c.oid))::bigint AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      );
      starts.push({
        backend: 'postgres',
        firstStartMs: pgApp.firstMs,
        secondStartMs: pgApp.secondMs,
        sizeMB: +(Number(size.rows[0].b) / 1e6).toFixed(1),
      });
      rows.push(...(await run('postgres/express', pgApp.app)));
      await pgApp.app.stop();
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    }
  } else {
    console.log(`PostgreSQL not reachable at ${PG_URL}: postgres rows skipped`);
  }
  await admin.end().catch(() => undefined);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`\nSearch backends (${ROOT}), all locks off on the search routes\n`);
console.table(starts);
console.table(rows);
const base = rows.find((r) => r.backend === 'sqlite/express' && r.case === 'q=paris');
for (const r of rows)
  if (r !== base) r.vsSqliteExpressParis = +(r.reqPerSec / base.reqPerSec).toFixed(2);
console.log('req/s relative to sqlite/express q=paris:');
console.table(
  rows.map(({ backend, case: c, vsSqliteExpressParis }) => ({
    backend,
    case: c,
    ratio: vsSqliteExpressParis ?? 1,
  })),
);

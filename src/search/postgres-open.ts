import type { Pool, PoolClient } from 'pg';
import {
  PG_DROP,
  PG_FORMAT,
  PG_SCHEMA,
  pgMeta,
  pgWriteTransaction,
  setPgMeta,
  writeChunks,
} from './postgres-index.js';
import { prepareBatch } from './search-document.js';
import { PROGRESS_EVERY, SearchOpenOptions } from './search-open-options.js';

/**
 * Creates the tables when needed and, the first time, indexes the seed
 * corpus — in one transaction under the write lock, so that of several
 * instances starting together one builds and the others wait and reuse.
 */
export async function openPostgresIndex(pool: Pool, opts: SearchOpenOptions): Promise<void> {
  await pgWriteTransaction(pool, (client) => prepare(client, opts));
}

async function prepare(client: PoolClient, opts: SearchOpenOptions): Promise<void> {
  const log = opts.log ?? (() => undefined);
  const where = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s;
  if (!where) throw new Error('search database: no schema to create tables in (check search_path)');
  await client.query(
    'CREATE TABLE IF NOT EXISTS rampart_search_meta (key text PRIMARY KEY, value text NOT NULL)',
  );
  const format = await pgMeta(client, 'format');
  if (format !== undefined && format !== PG_FORMAT) {
    log(
      `search index in schema ${where} has format ${format}, this version needs ${PG_FORMAT}: rebuilding it (reload your own corpus with npm run index)`,
    );
    await client.query(PG_DROP);
  }
  await client.query(PG_SCHEMA);
  if ((await pgMeta(client, 'initialised')) === '1') {
    const n = (
      await client.query<{ n: number }>('SELECT count(*)::int AS n FROM rampart_search_items')
    ).rows[0]!.n;
    log(`search index in schema ${where} reused (${n} items)`);
    return;
  }
  await setPgMeta(client, 'format', PG_FORMAT);
  await setPgMeta(client, 'revision', '0');
  if (opts.seed) {
    const t0 = performance.now();
    const { docs } = prepareBatch(opts.seed.load());
    log(`search index in schema ${where}: indexing ${docs.length} items of ${opts.seed.name}`);
    let next = PROGRESS_EVERY;
    await writeChunks(client, docs, (done) => {
      if (done >= next || done === docs.length) log(`search index: ${done}/${docs.length} items`);
      while (next <= done) next += PROGRESS_EVERY;
    });
    // A bulk load leaves a long GIN pending list and no statistics: both make the first searches slow.
    await client.query("SELECT gin_clean_pending_list('rampart_search_items_tsv'::regclass)");
    await client.query('ANALYZE rampart_search_items');
    await setPgMeta(client, 'seed', opts.seed.name);
    log(`search index: done in ${Math.round(performance.now() - t0)} ms`);
  }
  await setPgMeta(client, 'initialised', '1');
}

import pg from 'pg';
import { BeforeAddListeners } from './before-add-listeners.js';
import { cancellableQuery } from './postgres-query.js';
import { PG_WRITE_LOCK, bumpPgRevision, writeChunks } from './postgres-index.js';
import { openPostgresIndex } from './postgres-open.js';
import type {
  BeforeAddListener,
  SearchBackend,
  SearchItem,
  SearchPage,
} from './search-backend.interface.js';
import { ITEM_COLUMNS, ItemRow, prepareBatch, queryOf, rowToItem } from './search-document.js';
import { ITERATOR_PAGE, SearchOpenOptions } from './search-open-options.js';

// count(*) OVER () gives the total with the page in one round trip (an empty page needs a second query).
const PAGE_SQL = `SELECT ${ITEM_COLUMNS}, count(*) OVER ()::int AS total FROM rampart_search_items WHERE tsv @@ $1::tsquery
  ORDER BY (name_norm = $2) DESC, population DESC NULLS LAST, id LIMIT $3 OFFSET $4`;

/**
 * The production backend: PostgreSQL full-text search (GIN over a tsvector of
 * our own terms) through a `pg` pool. Aborted calls are cancelled on the server.
 */
export class PostgresSearchBackend implements SearchBackend {
  readonly name = 'postgres' as const;
  private readonly listeners = new BeforeAddListeners();
  private closed = false;

  private constructor(private readonly pool: pg.Pool) {}

  /** Connects, creates the tables when needed and indexes the seed corpus the first time. */
  static async open(
    url: string,
    opts: SearchOpenOptions & { poolSize?: number } = {},
  ): Promise<PostgresSearchBackend> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
      application_name: 'rampart-search',
    });
    // An idle connection that dies must not crash the process; the next query reconnects.
    pool.on('error', (err) => opts.log?.(`search database connection lost: ${err.message}`));
    try {
      await openPostgresIndex(pool, opts);
      return new PostgresSearchBackend(pool);
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  async search(
    q: string,
    limit: number,
    offset: number,
    signal?: AbortSignal,
  ): Promise<SearchPage> {
    this.ready(signal);
    const { terms, norm } = queryOf(q);
    if (terms.length === 0) return { items: [], total: 0 };
    // Quoted lexemes are taken verbatim by the tsquery input (no parser, no folding); terms hold no quote.
    const query = terms.map((t) => `'${t}'`).join(' & ');
    const rows = await cancellableQuery<ItemRow & { total: number }>(
      this.pool,
      PAGE_SQL,
      [query, norm, limit, offset],
      signal,
    );
    if (rows.length > 0 || offset === 0)
      return { items: rows.map(rowToItem), total: rows[0]?.total ?? 0 };
    const [row] = await cancellableQuery<{ n: number }>(
      this.pool,
      'SELECT count(*)::int AS n FROM rampart_search_items WHERE tsv @@ $1::tsquery',
      [query],
      signal,
    );
    return { items: [], total: row!.n };
  }

  async getById(id: string, signal?: AbortSignal): Promise<SearchItem | undefined> {
    this.ready(signal);
    const [row] = await cancellableQuery<ItemRow>(
      this.pool,
      `SELECT ${ITEM_COLUMNS} FROM rampart_search_items WHERE id = $1`,
      [id],
      signal,
    );
    return row ? rowToItem(row) : undefined;
  }

  vocabulary(): AsyncIterable<string> {
    return this.pages(
      'SELECT term AS v FROM rampart_search_terms WHERE term > $1 ORDER BY term LIMIT $2',
    );
  }

  ids(): AsyncIterable<string> {
    return this.pages(
      'SELECT id AS v FROM rampart_search_items WHERE id > $1 ORDER BY id LIMIT $2',
    );
  }

  private async *pages(sql: string): AsyncIterable<string> {
    let after = '';
    for (;;) {
      this.ready();
      const rows = await cancellableQuery<{ v: string }>(this.pool, sql, [after, ITERATOR_PAGE]);
      for (const r of rows) yield r.v;
      if (rows.length < ITERATOR_PAGE) return;
      after = rows[rows.length - 1]!.v;
    }
  }

  async count(): Promise<{ items: number; terms: number; revision: number }> {
    this.ready();
    const [row] = await cancellableQuery<{ items: number; terms: number; revision: string }>(
      this.pool,
      `SELECT (SELECT count(*)::int FROM rampart_search_items) AS items, (SELECT count(*)::int FROM rampart_search_terms) AS terms,
              (SELECT value FROM rampart_search_meta WHERE key = 'revision') AS revision`,
      [],
    );
    return { items: row!.items, terms: row!.terms, revision: Number(row!.revision ?? 0) };
  }

  async add(items: SearchItem[]): Promise<void> {
    const { docs, batch } = prepareBatch(items);
    if (docs.length === 0) return;
    await this.listeners.run(batch);
    await this.transaction((client) => writeChunks(client, docs));
  }

  async clear(): Promise<void> {
    await this.transaction((client) =>
      client.query('TRUNCATE rampart_search_items, rampart_search_terms'),
    );
  }

  onBeforeAdd(listener: BeforeAddListener): () => void {
    return this.listeners.add(listener);
  }

  async ping(): Promise<void> {
    this.ready();
    await cancellableQuery(this.pool, 'SELECT 1', []);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** One write transaction holding the schema's write lock; counts as one revision. */
  private async transaction(work: (client: pg.PoolClient) => Promise<unknown>): Promise<void> {
    this.ready();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(PG_WRITE_LOCK);
      await work(client);
      await bumpPgRevision(client);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private ready(signal?: AbortSignal): void {
    if (this.closed) throw new Error('search backend is closed');
    signal?.throwIfAborted();
  }
}

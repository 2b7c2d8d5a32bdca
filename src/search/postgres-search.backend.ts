import pg from 'pg';
import { cancellableQuery } from './postgres-query.js';
import { bumpPgRevision, pgWriteTransaction, writeChunks } from './postgres-index.js';
import { openPostgresIndex } from './postgres-open.js';
import type { SearchBackend, SearchItem, SearchPage } from './search-backend.interface.js';
import { ITEM_COLUMNS, ItemRow, rowToItem } from './search-document.js';
import { ITERATOR_PAGE, SearchOpenOptions } from './search-open-options.js';
import { SqlSearchBackendBase } from './sql-search-backend.base.js';

// count(*) OVER () gives the total with the page in one round trip (an empty page needs a second query).
const PAGE_SQL = `SELECT ${ITEM_COLUMNS}, count(*) OVER ()::int AS total FROM rampart_search_items WHERE tsv @@ $1::tsquery
  ORDER BY (name_norm = $2) DESC, population DESC NULLS LAST, id LIMIT $3 OFFSET $4`;

/**
 * The production backend: PostgreSQL full-text search (GIN over a tsvector of
 * our own terms) through a `pg` pool. Aborted calls are cancelled on the server.
 */
export class PostgresSearchBackend extends SqlSearchBackendBase implements SearchBackend {
  readonly name = 'postgres' as const;

  private constructor(private readonly pool: pg.Pool) {
    super();
  }

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
    const asked = this.termsOf(q, signal);
    if (!asked) return { items: [], total: 0 };
    const { terms, norm } = asked;
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
    return this.sqlPages(
      'SELECT term AS v FROM rampart_search_terms WHERE term > $1 ORDER BY term LIMIT $2',
    );
  }

  ids(): AsyncIterable<string> {
    return this.sqlPages(
      'SELECT id AS v FROM rampart_search_items WHERE id > $1 ORDER BY id LIMIT $2',
    );
  }

  private sqlPages(sql: string): AsyncIterable<string> {
    return super.pages(async (after) =>
      (await cancellableQuery<{ v: string }>(this.pool, sql, [after, ITERATOR_PAGE])).map(
        (r) => r.v,
      ),
    );
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
    const docs = await this.accepted(items);
    if (!docs) return;
    await this.transaction((client) => writeChunks(client, docs));
  }

  async clear(): Promise<void> {
    await this.transaction((client) =>
      client.query('TRUNCATE rampart_search_items, rampart_search_terms'),
    );
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
    await pgWriteTransaction(this.pool, async (client) => {
      await work(client);
      await bumpPgRevision(client);
    });
  }
}

import type Database from 'better-sqlite3';
import type { SearchBackend, SearchItem, SearchPage } from './search-backend.interface.js';
import { ITEM_COLUMNS, ItemRow, rowToItem } from './search-document.js';
import { ITERATOR_PAGE, SearchOpenOptions } from './search-open-options.js';
import { bumpRevision, openSqliteIndex, sqliteWriter } from './sqlite-index.js';
import { SqlSearchBackendBase } from './sql-search-backend.base.js';

const PAGE_SQL = `SELECT ${ITEM_COLUMNS.split(', ')
  .map((c) => `i.${c}`)
  .join(', ')}
  FROM items_fts f JOIN items i ON i.doc = f.rowid
  WHERE items_fts MATCH ?
  ORDER BY (i.name_norm = ?) DESC, i.population DESC NULLS LAST, i.id
  LIMIT ? OFFSET ?`;

/**
 * The embedded backend: SQLite FTS5 through better-sqlite3, in one file that
 * is indexed on first open and reused afterwards. Calls are synchronous, so
 * an abort can only be honoured before a statement starts.
 */
export class SqliteSearchBackend extends SqlSearchBackendBase implements SearchBackend {
  readonly name = 'sqlite' as const;
  private readonly stmt;
  private readonly write;
  private counted?: { key: string; items: number; terms: number };

  private constructor(private readonly db: Database.Database) {
    super();
    this.write = sqliteWriter(db);
    this.stmt = {
      page: db.prepare<[string, string, number, number], ItemRow>(PAGE_SQL),
      total: db.prepare<[string], { n: number }>(
        'SELECT count(*) AS n FROM items_fts WHERE items_fts MATCH ?',
      ),
      byId: db.prepare<[string], ItemRow>(`SELECT ${ITEM_COLUMNS} FROM items WHERE id = ?`),
      terms: db.prepare<[string, number], { term: string }>(
        'SELECT term FROM items_vocab WHERE term > ? ORDER BY term LIMIT ?',
      ),
      ids: db.prepare<[string, number], { id: string }>(
        'SELECT id FROM items WHERE id > ? ORDER BY id LIMIT ?',
      ),
      items: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM items'),
      vocab: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM items_vocab'),
      revision: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'revision'"),
    };
  }

  /** Opens the file at `path` (directory created), indexing the seed corpus the first time. */
  static open(path: string, opts: SearchOpenOptions = {}): Promise<SqliteSearchBackend> {
    return Promise.resolve().then(() => new SqliteSearchBackend(openSqliteIndex(path, opts)));
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
    // Terms hold only letters and digits, so quoting each one is safe; space-separated strings are ANDed.
    const match = terms.map((t) => `"${t}"`).join(' ');
    const items = this.stmt.page.all(match, norm, limit, offset).map(rowToItem);
    // A page that is not full ends the matches: its total is known without counting (a window count makes SQLite slower).
    const total =
      items.length < limit && (items.length > 0 || offset === 0)
        ? offset + items.length
        : this.stmt.total.get(match)!.n;
    return { items, total };
  }

  async getById(id: string, signal?: AbortSignal): Promise<SearchItem | undefined> {
    this.ready(signal);
    const row = this.stmt.byId.get(id);
    return row ? rowToItem(row) : undefined;
  }

  async *vocabulary(): AsyncIterable<string> {
    // Keyset pages, not one open cursor: better-sqlite3 forbids other statements while an iterator is open.
    yield* this.pages((after) => this.stmt.terms.all(after, ITERATOR_PAGE).map((r) => r.term));
  }

  async *ids(): AsyncIterable<string> {
    yield* this.pages((after) => this.stmt.ids.all(after, ITERATOR_PAGE).map((r) => r.id));
  }

  async count(): Promise<{ items: number; terms: number; revision: number }> {
    this.ready();
    const revision = Number(this.stmt.revision.get()?.value ?? 0);
    // Counting the vocabulary walks the whole FTS index: keep it until a write (ours or another process's).
    const key = `${revision}`;
    if (this.counted?.key !== key)
      this.counted = { key, items: this.stmt.items.get()!.n, terms: this.stmt.vocab.get()!.n };
    return { items: this.counted.items, terms: this.counted.terms, revision };
  }

  async add(items: SearchItem[]): Promise<void> {
    const docs = await this.accepted(items);
    if (!docs) return;
    this.ready();
    this.db
      .transaction(() => {
        for (const doc of docs) this.write(doc, true);
        bumpRevision(this.db);
      })
      .immediate();
  }

  async clear(): Promise<void> {
    this.ready();
    this.db
      .transaction(() => {
        this.db.exec("DELETE FROM items; INSERT INTO items_fts (items_fts) VALUES ('delete-all');");
        bumpRevision(this.db);
      })
      .immediate();
  }

  async ping(): Promise<void> {
    this.ready();
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

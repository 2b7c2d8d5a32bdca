import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { IndexedItem, itemValues, prepareBatch } from './search-document.js';
import { PROGRESS_EVERY, SearchOpenOptions, indexFormat } from './search-open-options.js';
import { TOKENIZER_VERSION } from './search-tokenizer.js';

const FORMAT = indexFormat(1, TOKENIZER_VERSION);

/*
 * items_fts indexes the pre-tokenised terms (joined by single spaces) with the
 * `ascii` tokenizer: every non-ASCII character is a token character and our
 * terms hold no ASCII separator or capital, so FTS5 splits exactly on our
 * spaces and its vocabulary is our vocabulary. Contentless (the text lives in
 * `items`), detail=none (AND of whole terms needs no positions), deletable.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS items (
  doc INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  country TEXT, population INTEGER, lat REAL, lon REAL,
  alt_names TEXT, fields TEXT,
  name_norm TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(terms, content='', contentless_delete=1, tokenize='ascii', detail=none);
CREATE VIRTUAL TABLE IF NOT EXISTS items_vocab USING fts5vocab(items_fts, 'row');
`;

/** Opens (creating when needed) the SQLite file and makes sure its index is complete. */
export function openSqliteIndex(path: string, opts: SearchOpenOptions): Database.Database {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    // Another process (a second instance, `npm run index`) may hold the write lock: wait for it.
    db.pragma('busy_timeout = 60000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(
      'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID',
    );
    // IMMEDIATE: the first of several processes opening a new file builds it, the others wait and reuse it.
    db.transaction(() => prepareIndex(db, file, opts)).immediate();
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function meta(db: Database.Database, key: string): string | undefined {
  return (
    db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined
  )?.value;
}

function setMeta(db: Database.Database, key: string, value: string): void {
  db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}

function prepareIndex(db: Database.Database, file: string, opts: SearchOpenOptions): void {
  const log = opts.log ?? (() => undefined);
  const format = meta(db, 'format');
  if (format !== undefined && format !== FORMAT) {
    log(
      `search index ${file} has format ${format}, this version needs ${FORMAT}: rebuilding it (reload your own corpus with npm run index)`,
    );
    db.exec(
      'DROP TABLE IF EXISTS items_vocab; DROP TABLE IF EXISTS items_fts; DROP TABLE IF EXISTS items; DELETE FROM meta;',
    );
  }
  db.exec(SCHEMA);
  if (meta(db, 'initialised') === '1') {
    log(
      `search index ${file} reused (${(db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n} items)`,
    );
    return;
  }
  setMeta(db, 'format', FORMAT);
  setMeta(db, 'revision', '0');
  if (opts.seed) {
    const t0 = performance.now();
    const { docs } = prepareBatch(opts.seed.load());
    log(`search index ${file}: indexing ${docs.length} items of ${opts.seed.name}`);
    const write = sqliteWriter(db);
    docs.forEach((doc, i) => {
      write(doc, false);
      if ((i + 1) % PROGRESS_EVERY === 0) log(`search index: ${i + 1}/${docs.length} items`);
    });
    db.exec("INSERT INTO items_fts (items_fts) VALUES ('optimize')");
    setMeta(db, 'seed', opts.seed.name);
    log(
      `search index: ${docs.length}/${docs.length} items, done in ${Math.round(performance.now() - t0)} ms`,
    );
  }
  setMeta(db, 'initialised', '1');
}

/** Upserts one indexed item (inside the caller's transaction). `replace=false` skips the lookup on a fresh table. */
export function sqliteWriter(db: Database.Database): (doc: IndexedItem, replace: boolean) => void {
  const find = db.prepare<[string], { doc: number }>('SELECT doc FROM items WHERE id = ?');
  const insert = db.prepare(
    'INSERT INTO items (id, name, country, population, lat, lon, alt_names, fields, name_norm) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const update = db.prepare(
    'UPDATE items SET id = ?, name = ?, country = ?, population = ?, lat = ?, lon = ?, alt_names = ?, fields = ?, name_norm = ? WHERE doc = ?',
  );
  const unindex = db.prepare('DELETE FROM items_fts WHERE rowid = ?');
  const index = db.prepare('INSERT INTO items_fts (rowid, terms) VALUES (?, ?)');
  return (doc, replace) => {
    const values = itemValues(doc);
    const existing = replace ? find.get(doc.item.id) : undefined;
    let rowid: number | bigint;
    if (existing) {
      unindex.run(existing.doc);
      update.run(...values, existing.doc);
      rowid = existing.doc;
    } else {
      rowid = insert.run(...values).lastInsertRowid;
    }
    index.run(rowid, doc.terms.join(' '));
  };
}

/** Counts a committed write (other processes see it through `revision`). */
export function bumpRevision(db: Database.Database): void {
  db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'revision'").run();
}

import type { Pool, PoolClient } from 'pg';
import { IndexedItem, itemValues } from './search-document.js';
import { indexFormat } from './search-open-options.js';
import { TOKENIZER_VERSION } from './search-tokenizer.js';

export const PG_FORMAT = indexFormat(1, TOKENIZER_VERSION);

/*
 * Tables live in the first schema of the connection's search_path. The
 * tsvector is built with array_to_tsvector() from our own terms, not by a
 * text-search parser: no parser, locale or dictionary can split or fold a
 * term differently from tokenize(), so the terms table is the exact
 * vocabulary. Ids and terms use the "C" collation: byte order, like SQLite.
 */
export const PG_SCHEMA = `
CREATE TABLE IF NOT EXISTS rampart_search_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS rampart_search_items (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  country text, population double precision, lat double precision, lon double precision,
  alt_names jsonb, fields jsonb,
  name_norm text NOT NULL,
  tsv tsvector NOT NULL
);
CREATE INDEX IF NOT EXISTS rampart_search_items_tsv ON rampart_search_items USING gin (tsv);
CREATE TABLE IF NOT EXISTS rampart_search_terms (term text COLLATE "C" PRIMARY KEY, docs integer NOT NULL);
`;

export const PG_DROP =
  'DROP TABLE IF EXISTS rampart_search_items, rampart_search_terms; DELETE FROM rampart_search_meta;';

/** Serialises writers of one schema's index (first-start seeding, adds, clear) across processes. */
export const PG_WRITE_LOCK =
  "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.rampart_search'))";

/** One transaction holding the schema's write lock (PG_WRITE_LOCK): committed, or rolled back on error. */
export async function pgWriteTransaction(
  pool: Pool,
  work: (client: PoolClient) => Promise<unknown>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(PG_WRITE_LOCK);
    await work(client);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export async function pgMeta(client: PoolClient, key: string): Promise<string | undefined> {
  const r = await client.query<{ value: string }>(
    'SELECT value FROM rampart_search_meta WHERE key = $1',
    [key],
  );
  return r.rows[0]?.value;
}

export async function setPgMeta(client: PoolClient, key: string, value: string): Promise<void> {
  await client.query(
    'INSERT INTO rampart_search_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
    [key, value],
  );
}

export async function bumpPgRevision(client: PoolClient): Promise<void> {
  await client.query(
    "UPDATE rampart_search_meta SET value = (value::bigint + 1)::text WHERE key = 'revision'",
  );
}

const UPSERT = `
INSERT INTO rampart_search_items (id, name, country, population, lat, lon, alt_names, fields, name_norm, tsv)
SELECT u.id, u.name, u.country, u.population, u.lat, u.lon, u.alt_names::jsonb, u.fields::jsonb, u.name_norm,
       array_to_tsvector(string_to_array(u.terms, ' '))
FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[], $7::text[], $8::text[], $9::text[], $10::text[])
  AS u(id, name, country, population, lat, lon, alt_names, fields, name_norm, terms)
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, country = EXCLUDED.country, population = EXCLUDED.population,
  lat = EXCLUDED.lat, lon = EXCLUDED.lon, alt_names = EXCLUDED.alt_names, fields = EXCLUDED.fields,
  name_norm = EXCLUDED.name_norm, tsv = EXCLUDED.tsv`;

/**
 * Upserts distinct-id items inside the caller's transaction (which holds the
 * write lock) and keeps the terms table exact: each term counts the items
 * holding it, and a term no item holds any more is deleted.
 */
export async function pgWrite(client: PoolClient, docs: IndexedItem[]): Promise<void> {
  const delta = new Map<string, number>();
  const old = await client.query<{ terms: string[] }>(
    'SELECT tsvector_to_array(tsv) AS terms FROM rampart_search_items WHERE id = ANY($1::text[])',
    [docs.map((d) => d.item.id)],
  );
  for (const row of old.rows) for (const t of row.terms) delta.set(t, (delta.get(t) ?? 0) - 1);
  for (const d of docs) for (const t of d.terms) delta.set(t, (delta.get(t) ?? 0) + 1);

  const columns: unknown[][] = Array.from({ length: 10 }, () => []);
  for (const d of docs) {
    itemValues(d).forEach((v, i) => columns[i]!.push(v));
    columns[9]!.push(d.terms.join(' '));
  }
  await client.query(UPSERT, columns);

  const changed = [...delta].filter(([, n]) => n !== 0);
  if (changed.length === 0) return;
  await client.query(
    `INSERT INTO rampart_search_terms (term, docs) SELECT * FROM unnest($1::text[], $2::int[])
     ON CONFLICT (term) DO UPDATE SET docs = rampart_search_terms.docs + EXCLUDED.docs`,
    [changed.map(([t]) => t), changed.map(([, n]) => n)],
  );
  const dropped = changed.filter(([, n]) => n < 0).map(([t]) => t);
  if (dropped.length > 0)
    await client.query(
      'DELETE FROM rampart_search_terms WHERE term = ANY($1::text[]) AND docs <= 0',
      [dropped],
    );
}

/** Items per INSERT statement. */
const WRITE_CHUNK = 2_000;

/** Writes any number of items in chunks (inside the caller's transaction). */
export async function writeChunks(
  client: PoolClient,
  docs: IndexedItem[],
  progress?: (done: number) => void,
): Promise<void> {
  for (let i = 0; i < docs.length; i += WRITE_CHUNK) {
    await pgWrite(client, docs.slice(i, i + WRITE_CHUNK));
    progress?.(Math.min(i + WRITE_CHUNK, docs.length));
  }
}

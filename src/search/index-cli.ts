import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../config/config.error.js';
import { loadConfig } from '../config/load-config.js';
import { CorpusFileError, corpusFormat, readCorpus } from './corpus-reader.js';
import { openSearchBackend } from './search-backend.factory.js';
import type { SearchItem } from './search-backend.interface.js';

/** Items per write (one transaction each). */
const BATCH = 1_000;
/** Rows between two progress lines. */
const PROGRESS_EVERY = 10_000;
/** Bad rows reported one by one; the rest are only counted. */
const MAX_REPORTED = 50;

const USAGE = 'usage: npm run index -- [--replace] <file.jsonl|file.ndjson|file.csv>';

export interface CliIo {
  /** Environment for loadConfig (default: the process environment). */
  env?: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
}

/**
 * `npm run index -- [--replace] <file>`: loads a user's corpus (JSON Lines,
 * or CSV with a header row; `id` and `name` required) into the configured
 * backend, upserting by id; `--replace` empties the index first. Bad rows
 * are reported with their line number and skipped. Returns the exit code:
 * 0 when items were loaded, 1 when nothing was loaded or a write failed
 * midway (the batches before it stay loaded), 2 for bad usage, 78 for a bad
 * configuration.
 */
export async function runIndexCli(argv: string[], io: CliIo): Promise<number> {
  const replace = argv.includes('--replace');
  const files = argv.filter((a) => a !== '--replace');
  if (files.length !== 1 || files[0]!.startsWith('-')) {
    io.err(USAGE);
    return 2;
  }
  const file = files[0]!;
  let config;
  try {
    config = loadConfig(io.env ?? process.env, {});
    corpusFormat(file);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof CorpusFileError) {
      io.err(e.message);
      return e instanceof ConfigError ? 78 : 2;
    }
    throw e;
  }
  if (!existsSync(file)) {
    io.err(`${file}: no such file`);
    return 2;
  }
  let backend;
  try {
    backend = await openSearchBackend(config, { log: io.out, seed: 'none' });
  } catch (e) {
    io.err(`cannot open the ${config.search.backend} search backend: ${(e as Error).message}`);
    return 1;
  }
  const where = backend.name === 'sqlite' ? `sqlite (${config.search.sqlitePath})` : 'postgres';
  const t0 = performance.now();
  let loaded = 0;
  let bad = 0;
  let rows = 0;
  let failed = false;
  try {
    const reader = readCorpus(file)[Symbol.asyncIterator]();
    // Read the first row before emptying anything: a file with no usable header leaves the index alone.
    let next = await reader.next();
    if (replace) {
      await backend.clear();
      io.out(`emptied the ${where} index`);
    }
    let batch: SearchItem[] = [];
    for (; !next.done; next = await reader.next()) {
      const row = next.value;
      if (++rows % PROGRESS_EVERY === 0)
        io.out(`${rows} rows read, ${loaded + batch.length} items, ${bad} bad rows`);
      if ('error' in row) {
        if (++bad <= MAX_REPORTED) io.err(`${file}:${row.line}: skipped: ${row.error}`);
        continue;
      }
      batch.push(row.item);
      if (batch.length >= BATCH) {
        await backend.add(batch);
        loaded += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) await backend.add(batch);
    loaded += batch.length;
  } catch (e) {
    failed = true;
    io.err(e instanceof CorpusFileError ? e.message : `stopped: ${(e as Error).message}`);
  } finally {
    await backend.close();
  }
  if (bad > MAX_REPORTED) io.err(`… and ${bad - MAX_REPORTED} more bad rows`);
  io.out(
    `loaded ${loaded} items from ${file} into ${where} in ${Math.round(performance.now() - t0)} ms; ${bad} bad rows skipped`,
  );
  if (loaded === 0) io.err('nothing was loaded');
  return loaded > 0 && !failed ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await runIndexCli(process.argv.slice(2), {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  });
  process.exitCode = code;
}

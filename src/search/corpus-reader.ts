import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { csvRecords } from './csv-records.js';
import { rowToSearchItem } from './corpus-row.js';
import type { SearchItem } from './search-backend.interface.js';

/** One row of a corpus file: an item, or why the row was skipped; `line` is 1-based. */
export type CorpusRow = { line: number; item: SearchItem } | { line: number; error: string };

/** Thrown when the file as a whole cannot be read (unknown type, no usable CSV header). */
export class CorpusFileError extends Error {
  override readonly name = 'CorpusFileError';
}

/** The file formats `npm run index` reads, by extension. */
export function corpusFormat(path: string): 'jsonl' | 'csv' {
  const ext = extname(path).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.csv') return 'csv';
  throw new CorpusFileError(
    `${path}: unsupported file type "${ext}" (use .jsonl, .ndjson or .csv)`,
  );
}

function lines(path: string): AsyncIterable<string> {
  return createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
}

/** Reads a JSON Lines or CSV corpus row by row; bad rows are reported, never thrown. */
export async function* readCorpus(path: string): AsyncGenerator<CorpusRow> {
  if (corpusFormat(path) === 'jsonl') {
    let line = 0;
    for await (const text of lines(path)) {
      line++;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        yield { line, error: `not valid JSON: ${(e as Error).message}` };
        continue;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        yield { line, error: 'not a JSON object' };
      else yield { line, ...rowToSearchItem(value as Record<string, unknown>) };
    }
    return;
  }
  let header: string[] | undefined;
  for await (const rec of csvRecords(lines(path))) {
    if ('error' in rec) {
      if (!header)
        throw new CorpusFileError(
          `${path}: line ${rec.line}: the header row cannot be read: ${rec.error}`,
        );
      yield rec;
      continue;
    }
    if (!header) {
      header = rec.fields.map((f) => f.trim());
      const missing = ['id', 'name'].filter((c) => !header!.includes(c));
      if (missing.length > 0)
        throw new CorpusFileError(
          `${path}: the header row (line ${rec.line}) has no ${missing.join(' or ')} column`,
        );
      continue;
    }
    if (rec.fields.length !== header.length) {
      yield {
        line: rec.line,
        error: `has ${rec.fields.length} fields, the header has ${header.length}`,
      };
      continue;
    }
    yield {
      line: rec.line,
      ...rowToSearchItem(Object.fromEntries(header.map((h, i) => [h, rec.fields[i]]))),
    };
  }
}

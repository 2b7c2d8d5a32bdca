import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CorpusFileError, CorpusRow, corpusFormat, readCorpus } from './corpus-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'rampart-corpus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(name: string, text: string): Promise<CorpusRow[]> {
  const path = join(dir, name);
  writeFileSync(path, text);
  const out: CorpusRow[] = [];
  for await (const r of readCorpus(path)) out.push(r);
  return out;
}

describe(readCorpus.name, () => {
  it('should read JSON Lines and report each bad line by number', async () => {
    const rows = await read(
      'a.jsonl',
      '{"id":"1","name":"One"}\n\n{"id":"2"\n[1,2]\n{"id":"3","name":""}\r\n{"id":"4","name":"Four"}\n',
    );
    expect(rows).toEqual([
      { line: 1, item: { id: '1', name: 'One' } },
      { line: 3, error: expect.stringMatching(/^not valid JSON: /) as unknown as string },
      { line: 4, error: 'not a JSON object' },
      { line: 5, error: 'name is missing' },
      { line: 6, item: { id: '4', name: 'Four' } },
    ]);
  });

  it('should read CSV by its header and report rows with the wrong number of fields', async () => {
    const rows = await read(
      'a.csv',
      'id,name,country,population\r\n1,"Paris, FR",FR,2138551\n2,Two\n3,"multi\nline",XX,\n4,x,"bad"q,1\n',
    );
    expect(rows).toEqual([
      { line: 2, item: { id: '1', name: 'Paris, FR', country: 'FR', population: 2138551 } },
      { line: 3, error: 'has 2 fields, the header has 4' },
      { line: 4, item: { id: '3', name: 'multi\nline', country: 'XX' } },
      { line: 6, error: 'unexpected character after a closing quote (column 10)' },
    ]);
  });

  it('should refuse a CSV file whose header has no id or name column', async () => {
    await expect(read('b.csv', 'key,title\n1,x\n')).rejects.toThrow(
      /header row \(line 1\) has no id or name column/,
    );
  });
});

describe(corpusFormat.name, () => {
  it('should tell the format by the extension and refuse others', () => {
    expect(corpusFormat('x.JSONL')).toBe('jsonl');
    expect(corpusFormat('x.ndjson')).toBe('jsonl');
    expect(corpusFormat('dir/x.csv')).toBe('csv');
    expect(() => corpusFormat('x.json')).toThrow(CorpusFileError);
  });
});

import { describe, expect, it } from 'vitest';
import { CsvError, CsvRecord, csvRecords } from './csv-records.js';

async function read(text: string): Promise<(CsvRecord | CsvError)[]> {
  const out: (CsvRecord | CsvError)[] = [];
  for await (const r of csvRecords(text.split(/\r?\n/))) out.push(r);
  return out;
}

describe(csvRecords.name, () => {
  it('should split plain comma-separated lines and number them from 1', async () => {
    expect(await read('id,name\n1,Paris')).toEqual([
      { line: 1, fields: ['id', 'name'] },
      { line: 2, fields: ['1', 'Paris'] },
    ]);
  });

  it('should read quoted fields with commas, doubled quotes and line breaks', async () => {
    expect(await read('1,"Paris, ""la ville"""\n2,"two\nlines",x\n3,')).toEqual([
      { line: 1, fields: ['1', 'Paris, "la ville"'] },
      { line: 2, fields: ['2', 'two\nlines', 'x'] },
      { line: 4, fields: ['3', ''] },
    ]);
  });

  it('should skip blank lines and a byte-order mark', async () => {
    expect(await read('\ufeffid,name\n\n  \n1,a\n')).toEqual([
      { line: 1, fields: ['id', 'name'] },
      { line: 4, fields: ['1', 'a'] },
    ]);
  });

  it('should keep a quote inside an unquoted field as a character', async () => {
    expect(await read('1,5" screen')).toEqual([{ line: 1, fields: ['1', '5" screen'] }]);
  });

  it('should report text after a closing quote and go on with the next line', async () => {
    expect(await read('1,"a"b\n2,ok')).toEqual([
      { line: 1, error: 'unexpected character after a closing quote (column 6)' },
      { line: 2, fields: ['2', 'ok'] },
    ]);
  });

  it('should report a quoted field that is never closed, at the line where it starts', async () => {
    expect(await read('1,ok\n2,"open\n3,more')).toEqual([
      { line: 1, fields: ['1', 'ok'] },
      { line: 2, error: 'quoted field never closed (runs to the end of the file)' },
    ]);
  });
});

/** One CSV record and the line it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A record that could not be read; reading goes on with the next line. */
export interface CsvError {
  line: number;
  error: string;
}

/**
 * Splits CSV text, given line by line, into records (RFC 4180: comma
 * separated, fields optionally in double quotes, `""` for a quote inside
 * quotes, line breaks allowed inside quotes). Blank lines are skipped. A
 * malformed record is reported with its line number and skipped.
 */
export async function* csvRecords(
  lines: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<CsvRecord | CsvError> {
  let lineNo = 0;
  let start = 0;
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let closed = false;
  for await (let text of lines) {
    lineNo++;
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (quoted) field += '\n';
    else {
      if (text.trim() === '') continue;
      start = lineNo;
      fields = [];
      field = '';
      closed = false;
    }
    let error: string | undefined;
    for (let i = 0; i < text.length && !error; i++) {
      const c = text[i];
      if (quoted) {
        if (c !== '"') field += c;
        else if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
          closed = true;
        }
      } else if (c === ',') {
        fields.push(field);
        field = '';
        closed = false;
      } else if (closed) {
        error = `unexpected character after a closing quote (column ${i + 1})`;
      } else if (c === '"' && field === '') {
        quoted = true;
      } else {
        field += c;
      }
    }
    if (error) {
      quoted = false;
      yield { line: start, error };
      continue;
    }
    if (quoted) continue;
    fields.push(field);
    yield { line: start, fields };
  }
  if (quoted)
    yield { line: start, error: 'quoted field never closed (runs to the end of the file)' };
}

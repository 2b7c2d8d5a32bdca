/**
 * docs/ names exactly the codes the service answers (src/common/problem-codes.ts). A page names
 * a code (a) in a table column headed `error` (or `` `error` ``), (b) as a status and the code,
 * ``429 `rate_limited` `` or `` `429 rate_limited` `` (also ``413/415 `code` ``, ``401 problem+json
 * `code` ``), or (c) in a
 * JSON body, `"error": "code"`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/common/paths.js';
import { PROBLEM_CODE_LIST, isProblemCode } from '../../src/common/problem-codes.js';

const ROOT = projectRoot();
const PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => ({ page: `docs/${f}`, text: readFileSync(join(ROOT, 'docs', f), 'utf8') }));

const SNAKE = /`([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+)`/g;

/** Codes in the `error` column of each table. */
function tableCodes(text: string): string[] {
  const out: string[] = [];
  let column = -1;
  for (const line of text.split('\n')) {
    if (!line.trimStart().startsWith('|')) {
      column = -1;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (column < 0) {
      column = cells.findIndex((c) => c === 'error' || c === '`error`');
      if (column < 0) column = -2; // a table without an `error` column: skip its rows
      continue;
    }
    if (column === -2 || /^[-: ]+$/.test(cells.join(''))) continue;
    // Fields named beside a code, `circuit_open` (`backend`, `state`), are not codes.
    const cell = (cells[column] ?? '').replace(/\([^)]*\)/g, '');
    out.push(...[...cell.matchAll(SNAKE)].map((m) => m[1]!));
  }
  return out;
}

function documented(text: string): string[] {
  const inline = [
    ...text.matchAll(/\b[1-5]\d\d(?:\/[1-5]\d\d)*(?: problem\+json)? `([a-z][a-z0-9_]*)`/g),
  ];
  const quoted = [...text.matchAll(/`[1-5]\d\d ([a-z][a-z0-9_]*)`/g)];
  const json = [...text.matchAll(/"error":\s*"([a-z][a-z0-9_]*)"/g)];
  return [...tableCodes(text), ...[...inline, ...quoted, ...json].map((m) => m[1]!)];
}

const named = PAGES.flatMap(({ page, text }) => documented(text).map((code) => ({ page, code })));

describe('problem codes in docs/', () => {
  it('should find the codes the pages name', () => {
    expect(new Set(named.map((n) => n.code)).size).toBeGreaterThan(40);
  });

  it('should name only codes of the catalogue (src/common/problem-codes.ts)', () => {
    expect(named.filter((n) => !isProblemCode(n.code))).toEqual([]);
  });

  it('should document every code of the catalogue', () => {
    const seen = new Set(named.map((n) => n.code));
    expect(PROBLEM_CODE_LIST.filter((c) => !seen.has(c))).toEqual([]);
  });
});

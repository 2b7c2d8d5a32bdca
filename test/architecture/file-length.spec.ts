/**
 * Files stay short (STYLE.md #1: one responsibility a file, aim under 150 lines). A source file of
 * src/ (spec and .d.ts files aside) longer than LIMIT lines fails, unless it is on OVER_LIMIT: the
 * files that were already longer when this check came in, each waiting for its split. The list only
 * shrinks: a listed file that is back within the limit (or gone) fails too, so its entry is removed
 * and cannot shelter the file when it grows again.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const LIMIT = 170;

/** Files over LIMIT lines today (the count as of the check's arrival); split one, then drop its line. */
const OVER_LIMIT: readonly string[] = [];

/** Lines of a file as `wc -l` counts them. */
function lineCount(file: string): number {
  return readFileSync(file, 'utf8').split('\n').length - 1;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Source files under `dir` longer than `limit` lines, as paths from `root`, sorted. */
export function longFiles(dir: string, limit: number, root = '.'): string[] {
  return sourceFiles(dir)
    .filter((f) => lineCount(f) > limit)
    .map((f) => relative(root, f))
    .sort();
}

describe('file length', () => {
  it('should find a source file over the limit, and leave spec and declaration files alone', () => {
    const root = mkdtempSync(join(tmpdir(), 'file-length-'));
    const put = (f: string, lines: number): void => {
      mkdirSync(dirname(join(root, f)), { recursive: true });
      writeFileSync(join(root, f), 'export {};\n'.repeat(lines));
    };
    put('src/a/long.ts', 11);
    put('src/a/short.ts', 10);
    put('src/a/long.spec.ts', 50);
    put('src/b/types.d.ts', 50);
    put('src/b/c/deep.ts', 12);
    expect(longFiles(join(root, 'src'), 10, root)).toEqual(['src/a/long.ts', 'src/b/c/deep.ts']);
  });

  const long = longFiles('src', LIMIT);

  it(`should keep every source file of src/ within ${LIMIT} lines (but for OVER_LIMIT)`, () => {
    expect(long.filter((f) => !OVER_LIMIT.includes(f))).toEqual([]);
  });

  it('should list on OVER_LIMIT only files still over the limit (drop a file once it is split)', () => {
    expect(OVER_LIMIT.filter((f) => !long.includes(f))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/common/paths.js';

/**
 * `npm start` rebuilds only what changed: tsc is incremental (its build info inside dist/, so a
 * fresh clone or `rm -rf dist` builds everything), and scripts/build-console.mjs skips vite when
 * no console input is newer than dist/console.
 */

const ROOT = projectRoot();
const SCRIPT = join(ROOT, 'scripts/build-console.mjs');

/** A project tree with console sources and, when asked, a built console; all files at `at` seconds. */
function tree(built: boolean, at = 1_000_000): string {
  const root = mkdtempSync(join(tmpdir(), 'rampart-fresh-'));
  const files = ['console/index.html', 'console/src/main.tsx', 'package.json', 'package-lock.json'];
  if (built) files.push('dist/console/index.html');
  for (const f of files) touch(root, f, at);
  return root;
}

function touch(root: string, file: string, at: number): void {
  const p = join(root, file);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, 'x');
  utimesSync(p, at, at);
}

function check(root: string): { fresh: boolean; out: string } {
  const r = spawnSync(process.execPath, [SCRIPT, '--check', '--root', root], { encoding: 'utf8' });
  return { fresh: r.status === 0, out: r.stdout };
}

describe('build freshness', () => {
  it('should build the console when it was never built (a fresh clone)', () => {
    expect(check(tree(false))).toEqual({
      fresh: false,
      out: 'console: stale (dist/console/index.html is missing)\n',
    });
  });

  it('should skip the console build when no input is newer than its output', () => {
    const root = tree(true);
    touch(root, 'dist/console/index.html', 1_000_100);
    expect(check(root)).toEqual({ fresh: true, out: 'console: fresh\n' });
  });

  it.each(['console/src/main.tsx', 'console/src/pages/new-page.tsx', 'package-lock.json'])(
    'should build the console again when %s is newer than its output',
    (file) => {
      const root = tree(true);
      touch(root, file, 1_000_200);
      expect(check(root)).toEqual({ fresh: false, out: `console: stale (${file} changed)\n` });
    },
  );

  it("should build incrementally with tsc's build info inside dist/, and the console only when stale", () => {
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { incremental?: boolean; tsBuildInfoFile?: string };
    };
    expect(build.compilerOptions.incremental).toBe(true);
    expect(build.compilerOptions.tsBuildInfoFile).toMatch(/^dist\//);
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.build).toBe('tsc -p tsconfig.build.json && node scripts/build-console.mjs');
    expect(scripts.start).toMatch(/^npm run build --silent && node dist\/src\/main\.js$/);
  });
});

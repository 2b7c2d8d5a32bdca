/**
 * src/ as JavaScript for child processes in tests: emitted by TypeScript without the type check
 * (`noCheck`: the same files as the build, decorator metadata included) into a temporary directory
 * that links the project's package.json, lua/ and node_modules/, so that everything resolves as from
 * dist/. The directory is named after a hash of the compiler, its options and every source file, so
 * the emit (several seconds of CPU, far more on a busy machine) runs once per source tree: the test
 * processes of a run, and the runs after it, reuse it until a file changes.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { projectRoot } from '../../src/common/paths.js';

let built: string | undefined;

/** The path of `src/<file>.js` in the emitted copy (e.g. `main`, `worker`). */
export function transpiledSrc(file: string): string {
  return join(emit(), 'src', `${file}.js`);
}

function emit(): string {
  if (built) return built;
  const root = projectRoot();
  const file = join(root, 'tsconfig.build.json');
  const { config } = ts.readConfigFile(file, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, file);
  const hash = createHash('sha256').update(`${ts.version}\0${JSON.stringify(parsed.options)}`);
  for (const f of [...parsed.fileNames].sort()) hash.update(`\0${f}\0`).update(readFileSync(f));
  const done = join(
    tmpdir(),
    `rampart-src-${root.replace(/\W/g, '_')}-${hash.digest('hex').slice(0, 16)}`,
  );
  if (!existsSync(done)) emitInto(done, root, parsed);
  built = done;
  return built;
}

/** Emits into a directory of its own, then renames it into place (another process may win the race). */
function emitInto(done: string, root: string, parsed: ts.ParsedCommandLine): void {
  const out = mkdtempSync(join(tmpdir(), 'rampart-src-'));
  for (const f of ['package.json', 'lua', 'node_modules']) symlinkSync(join(root, f), join(out, f));
  const options: ts.CompilerOptions = {
    ...parsed.options,
    outDir: out,
    noCheck: true,
    incremental: false,
    declaration: false,
    sourceMap: false,
  };
  const result = ts.createProgram(parsed.fileNames, options).emit();
  if (result.emitSkipped) throw new Error('could not emit src/ for a child process');
  try {
    renameSync(out, done);
  } catch (err) {
    rmSync(out, { recursive: true, force: true });
    if (!existsSync(done)) throw err;
  }
}

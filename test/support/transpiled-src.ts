/**
 * src/ as JavaScript for child processes in tests: emitted once per test
 * process by TypeScript without the type check (`noCheck`: the same files as
 * the build, decorator metadata included, in a few seconds) into a temporary
 * directory that links the project's package.json, lua/ and node_modules/, so
 * that everything resolves as from dist/.
 */
import { mkdtempSync, symlinkSync } from 'node:fs';
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
  const out = mkdtempSync(join(tmpdir(), 'rampart-src-'));
  for (const f of ['package.json', 'lua', 'node_modules']) symlinkSync(join(root, f), join(out, f));
  const file = join(root, 'tsconfig.build.json');
  const { config } = ts.readConfigFile(file, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, file);
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
  built = out;
  return built;
}

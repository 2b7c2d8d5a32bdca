/**
 * `npm run worker` as a real child process in tests: src/ transpiled once
 * (TypeScript's transpileModule, no type check: a second or two) into a
 * temporary directory that links the project's package.json, lua/ and
 * node_modules/, so that everything resolves as from dist/.
 */
import { ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { projectRoot } from '../../src/common/paths.js';

let built: string | undefined;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
}

function transpile(): string {
  if (built) return built;
  const root = projectRoot();
  const out = mkdtempSync(join(tmpdir(), 'rampart-worker-'));
  for (const f of ['package.json', 'lua', 'node_modules']) symlinkSync(join(root, f), join(out, f));
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
  for (const file of sources(join(root, 'src'))) {
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: {
        ...options,
        module: ts.ModuleKind.ES2022,
        sourceMap: false,
        declaration: false,
      },
      fileName: file,
    }).outputText;
    const target = join(out, relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  built = join(out, 'src/worker.js');
  return built;
}

/** Starts a worker process with this environment; resolves once it logged that it started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [transpile()], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`worker did not start: ${out}`)), 20_000);
    const on = (d: Buffer) => {
      out += d.toString();
      if (out.includes('telegram outbound worker started')) {
        clearTimeout(t);
        resolve();
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)));
  });
  return child;
}

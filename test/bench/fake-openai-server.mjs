// Runs test/support/fake-openai.ts (the tests' fake OpenAI-compatible upstream)
// as its own process for the benchmarks, so it does not share an event loop
// with autocannon. TypeScript is transpiled on the fly (the file imports only
// node built-ins). Prints `{"url": …}` as one JSON line on stdout when ready;
// switches come from the environment: FAKE_LATENCY_MS, FAKE_CHUNK_DELAY_MS.
//
// From a benchmark: `const fake = await spawnFakeOpenAI({ FAKE_CHUNK_DELAY_MS: '0' })`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Imports test/support/fake-openai.ts, transpiled to a temporary .mjs. */
export async function importFakeOpenAI() {
  const ts = (await import('typescript')).default;
  const source = readFileSync(join(ROOT, 'test/support/fake-openai.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const file = join(mkdtempSync(join(tmpdir(), 'rampart-fake-openai-')), 'fake-openai.mjs');
  writeFileSync(file, outputText);
  return import(file);
}

/** Starts the fake upstream in a child process; resolves with `{ url, pid, stop() }`. */
export async function spawnFakeOpenAI(env = {}) {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fake upstream exited with ${code}`)));
  });
  const { url } = JSON.parse(line);
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

if (process.argv[2] === '--serve') {
  const { startFakeOpenAI } = await importFakeOpenAI();
  const fake = await startFakeOpenAI();
  fake.setLatency(Number(process.env.FAKE_LATENCY_MS ?? 0));
  fake.setChunkDelay(Number(process.env.FAKE_CHUNK_DELAY_MS ?? 0));
  process.once('SIGTERM', () => fake.close().then(() => process.exit(0)));
  console.log(JSON.stringify({ url: fake.url }));
}

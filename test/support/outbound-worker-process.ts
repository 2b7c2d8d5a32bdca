/** `npm run worker` as a real child process in tests, from src/ transpiled (transpiled-src.ts). */
import { ChildProcess, spawn } from 'node:child_process';
import { transpiledSrc } from './transpiled-src.js';

/** Starts a worker process with this environment; resolves once it logged that it started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [transpiledSrc('worker')], {
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

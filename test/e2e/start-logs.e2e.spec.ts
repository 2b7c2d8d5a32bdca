import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { transpiledSrc } from '../support/transpiled-src.js';

/**
 * `node dist/src/main.js` as people start it: at a terminal (a pseudo-TTY from util-linux's
 * `script`), lines for people; on a pipe, JSON lines; Nest's per-module lines only at debug.
 */

const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;
/** An ANSI colour sequence (ESC [ … m). */
const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m');
const LAST_SUMMARY_LINE = /console http:\/\/\S+\/admin\/ui/;

const dir = mkdtempSync(join(tmpdir(), 'rampart-start-logs-'));
writeFileSync(join(dir, 'config.yaml'), 'search:\n  seed: none\n');

/** Starts the service with `env` until its start-up summary is out; returns what it wrote. */
async function startOnce(env: Record<string, string>, tty: boolean): Promise<string> {
  const base = { ...process.env };
  for (const k of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS', 'NODE_ENV', 'LOG_FORMAT'])
    delete base[k];
  const childEnv = {
    ...base,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    CONFIG_FILE: join(dir, 'config.yaml'),
    SEARCH_SQLITE_PATH: join(dir, 'search.sqlite'),
    ...env,
  };
  const main = transpiledSrc('main');
  const child = tty
    ? spawn('script', ['-qfec', `"${process.execPath}" "${main}"`, '/dev/null'], {
        env: childEnv,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      })
    : spawn(process.execPath, [main], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no start-up summary: ${out}`)), 40_000);
      const on = (d: Buffer) => {
        out += d.toString();
        if (LAST_SUMMARY_LINE.test(out)) {
          clearTimeout(t);
          resolve();
        }
      };
      child.stdout!.on('data', on);
      child.stderr!.on('data', on);
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
  } finally {
    if (tty) process.kill(-child.pid!, 'SIGTERM');
    else child.kill('SIGTERM');
  }
  return out;
}

const lines = (out: string): string[] => out.split(/\r?\n/).filter((l) => l.trim() !== '');
const isJson = (line: string): boolean => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

describe('start-up logs', () => {
  beforeAll(() => void transpiledSrc('main'), 120_000);

  it.skipIf(!HAS_SCRIPT)(
    'should write coloured lines for people at a terminal, the summary as one block at the end',
    async () => {
      const out = await startOnce({}, true);
      expect(out).toMatch(ANSI);
      const plain = lines(out.replaceAll(new RegExp(ANSI.source, 'g'), ''));
      expect(plain.filter(isJson)).toEqual([]);
      expect(plain[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[NestFactory\] Starting Nest/);
      const ready = plain.findIndex((l) => /INFO: rampart ready at http:\/\//.test(l));
      expect(ready).toBeGreaterThan(0);
      // The block: the lines after "ready at" are indented, not prefixed with a time.
      const block = plain.slice(ready + 1);
      expect(block[0]).toMatch(/^ {4}stores: memory/);
      expect(block.every((l) => /^ {4}\S/.test(l))).toBe(true);
      expect(block.at(-1)).toMatch(LAST_SUMMARY_LINE);
      expect(out).not.toContain('InstanceLoader');
      expect(out).not.toContain('RouterExplorer');
    },
  );

  it('should write JSON lines on a pipe, the summary one line each, Nest per-module lines absent', async () => {
    const out = await startOnce({}, false);
    const all = lines(out);
    expect(all.length).toBeGreaterThan(5);
    expect(all.filter((l) => !isJson(l))).toEqual([]);
    const parsed = all.map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = parsed.filter((l) => l.summary === true).map((l) => l.msg as string);
    expect(summary[0]).toMatch(/^rampart ready at/);
    expect(summary.at(-1)).toMatch(LAST_SUMMARY_LINE);
    expect(parsed.some((l) => l.context === 'InstanceLoader')).toBe(false);
    expect(parsed.some((l) => l.context === 'RoutesResolver')).toBe(false);
    expect(out).not.toMatch(ANSI);
  });

  it("should still write Nest's per-module and per-route lines at LOG_LEVEL=debug", async () => {
    const parsed = lines(await startOnce({ LOG_LEVEL: 'debug' }, false)).map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    const contexts = new Set(parsed.map((l) => l.context));
    expect(contexts).toContain('InstanceLoader');
    expect(contexts).toContain('RouterExplorer');
  });

  it('should write lines for people, without colours, on a pipe with LOG_FORMAT=pretty', async () => {
    const out = await startOnce({ LOG_FORMAT: 'pretty' }, false);
    expect(out).not.toMatch(ANSI);
    expect(lines(out).filter(isJson)).toEqual([]);
    expect(out).toMatch(/INFO: rampart ready at/);
  });

  it.skipIf(!HAS_SCRIPT)('should write JSON at a terminal with LOG_FORMAT=json', async () => {
    const all = lines(await startOnce({ LOG_FORMAT: 'json' }, true));
    expect(all.filter((l) => !isJson(l))).toEqual([]);
  });
});

// Shared helpers for the benchmarks: start the built app (dist/) as a child
// process, run autocannon against it, start private redis-servers, print tables.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** Seconds per autocannon run; BENCH_SECONDS overrides (e.g. 3 for a quick look). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

/**
 * BENCH_PIN=1 (machines with 2+ cores): the app runs alone on core 0; this process (the load
 * generator) and the private redis-servers share core 1, so the generator's and Redis's work
 * does not take the app's core (Redis CPU is still reported per request).
 */
const PIN = process.env.BENCH_PIN === '1';
if (PIN) execFileSync('taskset', ['-pc', '1', String(process.pid)], { stdio: 'ignore' });
/** `cmd args` on `core` when pinning. */
const pinned = (core, cmd, args) =>
  PIN ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args];

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Writes a JSON config file to a temp dir and returns its path. */
export function writeConfig(obj, name = 'rampart.json') {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-'));
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(obj, null, 2));
  return file;
}

/** Starts `node dist/src/main.js` (or `entry`) with env; resolves when /health/live answers. */
export async function startApp(env = {}, { entry = 'dist/src/main.js', nodeArgs = [] } = {}) {
  const port = await freePort();
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = spawn(...pinned(0, process.execPath, [...prof, ...nodeArgs, entry]), {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${url}/health/live`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('app did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    },
  };
}

/**
 * Waits until `/health/ready` answers 200 (ready means armed: Bloom filters
 * built, Redis scripts loaded), so a run measures the steady state, not the boot.
 */
export async function waitReady(url, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`${url}/health/ready`);
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('app did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** CPU time (user + system) of a process in microseconds, from /proc. */
export function cpuMicros(pid) {
  try {
    const stat = execFileSync('cat', [`/proc/${pid}/stat`], { encoding: 'utf8' });
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1e6) / 100;
  } catch {
    return NaN;
  }
}

/** Starts a private redis-server on a free port (never the machine's shared one). */
/** sha1 → name of every script in lua/ as the app loads it (what EVALSHA names in MONITOR); needs dist/. */
export async function luaScriptNames() {
  const { loadLuaScripts } = await import('../../dist/src/redis/lua-scripts.js');
  return Object.fromEntries(
    loadLuaScripts(join(ROOT, 'lua')).map((s) => [
      createHash('sha1').update(s.source).digest('hex'),
      s.name,
    ]),
  );
}

export async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-redis-'));
  const child = spawn(
    ...pinned(1, 'redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ]),
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 200; i++) {
    try {
      if (
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).trim() ===
        'PONG'
      )
        break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const cli = (...args) =>
    execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
  return {
    port,
    pid: child.pid,
    url: `redis://127.0.0.1:${port}`,
    cli,
    /**
     * Round trips: the commands clients sent while `during` ran, counted with
     * MONITOR (commands a script runs show as `[0 lua]` and are not round
     * trips; INFO commandstats counts them too). Returns { total, byCommand, byClass }. The second argument is
     * either `scriptNames` (sha → lua/<name>.lua, see luaScriptNames: script calls are also counted as
     * `evalsha <name>`) or `classify(line)`, which names a line's class (undefined: not in byClass).
     * `onLine(line)`, if given, sees every counted line (with its MONITOR timestamp).
     */
    async roundTrips(during, namesOrClassify = {}, onLine = undefined) {
      const classify = typeof namesOrClassify === 'function' ? namesOrClassify : () => undefined;
      const scriptNames = typeof namesOrClassify === 'function' ? {} : namesOrClassify;
      const mon = spawn('redis-cli', ['-p', String(port), 'monitor'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const byCommand = {};
      const byClass = {};
      let total = 0;
      let rest = '';
      mon.stdout.setEncoding('utf8').on('data', (chunk) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop();
        for (const line of lines) {
          const m = /^\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
          if (!m || m[1] === 'lua' || /^(monitor|info)$/i.test(m[2])) continue;
          const c = m[2].toLowerCase();
          byCommand[c] = (byCommand[c] ?? 0) + 1;
          // A script call is named by its sha (scriptNames: sha → lua/<name>.lua, see luaScriptNames).
          const sha = c === 'evalsha' ? /"evalsha" "([0-9a-f]+)"/i.exec(line)?.[1] : undefined;
          if (sha) {
            const k = `evalsha ${scriptNames[sha] ?? sha.slice(0, 8)}`;
            byCommand[k] = (byCommand[k] ?? 0) + 1;
          }
          const k = classify(line);
          if (k !== undefined) byClass[k] = (byClass[k] ?? 0) + 1;
          onLine?.(line);
          total += 1;
        }
      });
      await new Promise((r) => setTimeout(r, 200));
      try {
        await during();
        await new Promise((r) => setTimeout(r, 200)); // the last lines MONITOR has not printed yet
      } finally {
        mon.kill();
      }
      return { total, byCommand, byClass };
    },
    /** { command: { calls, usec } } from INFO commandstats (commands run inside scripts included). */
    commandstats() {
      const out = {};
      for (const line of cli('INFO', 'commandstats').split('\n')) {
        const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
        if (m) out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
      }
      return out;
    },
    async stop() {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGKILL');
      });
    },
  };
}

/** Runs autocannon; `opts` are passed through (url, headers, requests, setupRequest…). */
export function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts }, (err, res) =>
      err ? reject(err) : resolve(res),
    );
  });
}

/** Warm-up (discarded) then a measured run. */
export async function measure(opts, warmSeconds = Math.min(3, SECONDS)) {
  await cannon({ ...opts, duration: warmSeconds });
  return cannon(opts);
}

export function summary(res) {
  return {
    reqPerSec: Math.round(res.requests.average),
    p50: res.latency.p50,
    p99: res.latency.p99,
    non2xx: res.non2xx,
    errors: res.errors + res.timeouts,
  };
}

export function table(rows) {
  console.table(rows);
}

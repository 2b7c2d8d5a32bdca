// Rows of bench:chain on one adapter, one after another in one app, each with a CPU profile of its measured
// run only (chain-prof-hook.mjs, sampled every $PROF_INTERVAL_US, default 200 µs) and the app's Node CPU µs
// per request over that run (/proc); then their self/total shares by file/package and by function, side by
// side, scaled to each row's µs per request (prof-shares.mjs). Never shipped.
//   npm run build && BENCH_PIN=1 PROF_ROWS='reject floor,401 forged' PROF_ADAPTER=fastify \
//     PROF_OUT=/tmp/prof node test/bench/chain-prof.mjs
// PROF_ROWS: substrings of app-"on" rows of chain-cases.mjs, comma-separated (PROF_ROW: one; default
// 'signed GET'); the first row is the base the table's Δ is taken against. PROF_SECONDS (default 8) per
// run; PROF_ROUNDS (default 1) runs the rows in turn that many times, the shares weighted by samples.
// PROF_OUT: a directory for the .cpuprofile files (kept; open one in Chrome DevTools); without it, no
// profile, only the µs per request. PROF_TOP (default 30) lines per table.
import { mkdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { cannon, cpuMicros, startApp, startRedis, waitReady } from './lib.mjs';
import { VARIANTS, appsFile, onConfig, presign } from './chain-cases.mjs';
import { rowLine, sideBySide, summarize, tables } from './prof-shares.mjs';

const adapter = process.env.PROF_ADAPTER ?? 'fastify';
const wanted = (process.env.PROF_ROWS ?? process.env.PROF_ROW ?? 'signed GET').split(',');
const seconds = Number(process.env.PROF_SECONDS ?? 8);
const rounds = Number(process.env.PROF_ROUNDS ?? 1);
const top = Number(process.env.PROF_TOP ?? 30);
const out = process.env.PROF_OUT;
const rows = wanted.map((w) => {
  const found = VARIANTS.find(([n]) => n.includes(w.trim()));
  if (!found || found[1] !== 'on') throw new Error(`no row of app "on" matches ${w}`);
  return { name: found[0], requests: found[2], runs: [] };
});
if (out) mkdirSync(out, { recursive: true });
const redis = await startRedis();
const hook = new URL('./chain-prof-hook.mjs', import.meta.url).pathname;
const app = await startApp(
  {
    HTTP_ADAPTER: adapter,
    APPS_FILE: appsFile,
    CONFIG_FILE: onConfig,
    SEARCH_SQLITE_PATH: process.env.BENCH_SQLITE ?? join(tmpdir(), 'rampart-bench-prof.sqlite'),
    REDIS_COMMAND_TIMEOUT_MS: '1000',
    REDIS_URL: redis.url,
    RAMPART_ENV: `prof${adapter}`,
    ...(out ? { PROF_OUT: out } : {}),
  },
  { entry: 'test/bench/chain-app.mjs', nodeArgs: out ? ['--import', hook] : [] },
);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let profiles = 0;
/** Waits for the hook's next profile file and reads it. */
async function nextProfile() {
  const file = join(out, `${++profiles}.cpuprofile`);
  for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(100);
  return JSON.parse(readFileSync(file, 'utf8'));
}
try {
  await waitReady(app.url);
  for (let round = 0; round < rounds; round++)
    for (const row of rows) {
      presign(row.requests, 20_000 * 2);
      await cannon({ url: app.url, requests: row.requests, duration: 2 });
      presign(row.requests, 20_000 * seconds);
      if (out) process.kill(app.pid, 'SIGUSR2');
      const cpu0 = cpuMicros(app.pid);
      const res = await cannon({ url: app.url, requests: row.requests, duration: seconds });
      const cpu = cpuMicros(app.pid) - cpu0;
      if (out) process.kill(app.pid, 'SIGUSR2');
      const n = Math.max(1, res.requests.total);
      const summary = out ? summarize(await nextProfile()) : undefined;
      row.runs.push({ n, cpu, summary });
      console.log(
        `${adapter} ${row.name}: ${Math.round(res.requests.average)} req/s, ${n} requests, Node CPU ${(cpu / n).toFixed(1)} µs/req${summary ? `, ${summary.samples} samples at a median ${summary.intervalUs} µs (${out}/${profiles}.cpuprofile)` : ''}`,
      );
    }
} finally {
  await app.stop();
  await redis.stop();
}
if (out) {
  const merged = rows.map((r) => ({
    name: r.name,
    us: sum(r.runs, 'cpu') / sum(r.runs, 'n'),
    summary: merge(r.runs.map((x) => x.summary)),
  }));
  console.log(
    [
      '',
      `${adapter}, ${rounds} round(s) of ${seconds} s, shares weighted by busy samples:`,
      ...merged.map(rowLine),
    ].join('\n'),
  );
  for (const what of tables()) console.log(['', ...sideBySide(merged, what, top)].join('\n'));
}
function sum(runs, key) {
  return runs.reduce((s, r) => s + r[key], 0);
}
/** One summary from several runs' summaries: shares weighted by each run's busy samples. */
function merge(summaries) {
  const busy = sum(summaries, 'busy');
  const mix = (what) => {
    const m = new Map();
    for (const s of summaries)
      for (const [k, e] of s[what]) {
        const t = m.get(k) ?? { self: 0, total: 0 };
        t.self += (e.self * s.busy) / busy;
        t.total += (e.total * s.busy) / busy;
        m.set(k, t);
      }
    return m;
  };
  const intervals = summaries.map((s) => s.intervalUs).sort((a, b) => a - b);
  return {
    samples: sum(summaries, 'samples'),
    busy,
    intervalUs: intervals[intervals.length >> 1],
    fn: mix('fn'),
    file: mix('file'),
    under: mix('under'),
  };
}

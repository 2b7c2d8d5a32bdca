// bench:chain's rows measured in process, by cost per request rather than by rate: the app of
// chain-app.mjs (app "on") answers requests injected without sockets (fastify `inject`, or
// light-my-request on express's handler), so a shared machine's load moves the figures far less
// than it moves req/s. Per row and round: N requests, C at a time, after a warm-up; CPU µs per
// request of this whole process (`process.cpuUsage`, every thread), medians over the rounds.
// Signed headers are made before each measured batch (no HMAC of the client's inside it).
//
//   npm run build && node test/bench/chain-cost.mjs
//   COST_ADAPTER=express COST_N=2000 COST_ROUNDS=5 node test/bench/chain-cost.mjs
//   COST_ROWS='reject floor,401 forged' node test/bench/chain-cost.mjs
//   COST_ROWS='401 forged' COST_PROF=/tmp/forged.cpuprofile node test/bench/chain-cost.mjs
// Instruction counts (load-independent): run under callgrind with COST_CALLGRIND=1, which
// measures each row twice (N, then 2N requests) between dumps; the per-request count is the
// difference ÷ N (the dumps' own cost cancels):
//   COST_CALLGRIND=1 valgrind --tool=callgrind --instr-atstart=no \
//     --callgrind-out-file=/tmp/cg/cg.%p node test/bench/chain-cost.mjs
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, appsFile, onConfig } from './chain-cases.mjs';
import { ROOT, startRedis } from './lib.mjs';

const ADAPTER = process.env.COST_ADAPTER ?? 'fastify';
const N = Number(process.env.COST_N ?? 2000);
const C = Number(process.env.COST_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.COST_ROUNDS ?? 5);
const CALLGRIND = process.env.COST_CALLGRIND === '1';
/** A .cpuprofile of the measured rounds only (not the boot or the warm-up). */
const PROF = process.env.COST_PROF;
const redis = await startRedis();
Object.assign(process.env, {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  HTTP_ADAPTER: ADAPTER,
  APPS_FILE: appsFile,
  SEARCH_SQLITE_PATH:
    process.env.BENCH_SQLITE ?? join(mkdtempSync(join(tmpdir(), 'rampart-cost-')), 's.sqlite'),
  CONFIG_FILE: onConfig,
  REDIS_COMMAND_TIMEOUT_MS: '1000',
  REDIS_URL: redis.url,
  RAMPART_ENV: `cost${ADAPTER}`,
  PORT: '0',
});
const dist = `${ROOT}dist/src/`;
const { createApp } = await import(`${dist}app.factory.js`);
const { loadAppConfig } = await import(`${dist}app.config.js`);
const { signRequest } = await import(`${dist}sdk/index.js`);
const { BenchModule } = await import('./chain-routes.mjs');
const lightMyRequest = (await import('light-my-request')).default;

const app = await createApp(loadAppConfig(), { imports: [BenchModule] });
await app.init();
const instance = app.getHttpAdapter().getInstance();
let inject;
if (ADAPTER === 'fastify') {
  await instance.ready();
  inject = (o) => instance.inject(o);
} else {
  inject = (o) => lightMyRequest(instance, o);
}
for (let i = 0; ; i++) {
  const r = await inject({ method: 'GET', url: '/health/ready' });
  if (r.statusCode === 200) break;
  if (i > 1800) throw new Error(`not ready: ${r.body}`);
  await new Promise((r) => setTimeout(r, 100));
}

const sign = (secret) => () => ({
  method: 'GET',
  url: '/v1/whoami',
  headers: signRequest({ appId: APP.id, secret, method: 'GET', url: '/v1/whoami' }),
});
const plain = (url) => () => ({ method: 'GET', url });
/** [row, request maker, expected status]. */
const ROWS = [
  ['floor', plain('/bench/floor'), 200],
  ['reject floor', plain('/bench/reject'), 401],
  ['401 forged', sign('forged'.repeat(8)), 401],
  ['429 known-blocked', plain('/v1/search/items/2988507'), 429],
  ['floor + Redis', plain('/bench/floor-redis'), 200],
  ['signed whoami', sign(APP.secret), 200],
].filter(([name]) => !process.env.COST_ROWS || process.env.COST_ROWS.split(',').includes(name));

async function drive(requests, expect) {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const r = await inject(requests[next++]);
      if (r.statusCode !== expect) throw new Error(`${r.statusCode} ${r.body}`);
    }
  };
  await Promise.all(Array.from({ length: C }, worker));
}

/** Runs a callgrind_control command while the event loop keeps turning (valgrind polls then). */
function control(args) {
  return new Promise((resolve, reject) => {
    const spin = setInterval(() => {}, 1);
    execFile('callgrind_control', [...args, String(process.pid)], (err, out) => {
      clearInterval(spin);
      if (err) reject(err);
      else resolve(out);
    });
  });
}

const make = (fn, n) => Array.from({ length: n }, fn);
for (const [, fn, expect] of ROWS) await drive(make(fn, N), expect); // warm-up
const cpu = new Map(ROWS.map(([name]) => [name, []]));
// Every batch is made (and signed) before the measured part starts, profiler included (its
// timestamps must stay within the skew: keep N × rows × rounds to a minute or two). Under
// callgrind, each row's batches are made just before its first dump.
const rounds = CALLGRIND ? 1 : ROUNDS;
const batches = CALLGRIND
  ? []
  : Array.from({ length: rounds }, () => ROWS.map(([, fn]) => make(fn, N)));
if (CALLGRIND) await control(['-i', 'on']);
const session = PROF ? new inspector.Session() : undefined;
const post = (m, p) => new Promise((ok, no) => session.post(m, p, (e, r) => (e ? no(e) : ok(r))));
if (session) {
  session.connect();
  await post('Profiler.enable');
  await post('Profiler.start');
}
for (let round = 0; round < rounds; round++) {
  for (const [i, [name, fn, expect]] of ROWS.entries()) {
    if (CALLGRIND) {
      const a = make(fn, N);
      const b = make(fn, 2 * N);
      await control(['-d', `${name}:zero`]);
      await drive(a, expect);
      await control(['-d', `${name}:N`]);
      await drive(b, expect);
      await control(['-d', `${name}:2N`]);
      continue;
    }
    globalThis.gc?.();
    const t0 = process.cpuUsage();
    await drive(batches[round][i], expect);
    const t = process.cpuUsage(t0);
    cpu.get(name).push((t.user + t.system) / N);
  }
}
if (session) {
  const { profile } = await post('Profiler.stop');
  writeFileSync(PROF, JSON.stringify(profile));
}
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
if (!CALLGRIND) {
  const floorOf = { '401 forged': 'reject floor', '429 known-blocked': 'reject floor' };
  floorOf['signed whoami'] = 'floor + Redis';
  console.log(
    `chain-cost ${ADAPTER}: N=${N} C=${C} rounds=${ROUNDS}; CPU µs/request (median, min)`,
  );
  for (const [name] of ROWS) {
    const m = med(cpu.get(name));
    const base = floorOf[name] && cpu.has(floorOf[name]) ? med(cpu.get(floorOf[name])) : undefined;
    const over = base === undefined ? '' : `  (+${(m - base).toFixed(1)} over ${floorOf[name]})`;
    console.log(
      `${name.padEnd(20)} ${m.toFixed(1).padStart(7)} ${Math.min(...cpu.get(name))
        .toFixed(1)
        .padStart(7)}${over}`,
    );
  }
}
await app.close();
await redis.stop?.();
process.exit(0);

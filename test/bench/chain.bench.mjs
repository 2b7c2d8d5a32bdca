// bench:chain — the whole lock chain against a bare route and against Nest's own floor (one
// empty guard + one empty interceptor), on express and fastify, in one run, interleaved
// rounds. Per variant: req/s, p50/p99, Node CPU µs/request, Redis calls/request (round trips:
// MONITOR over 400 requests, the app's timers left out: chain-trips.mjs), Redis commands/request (INFO commandstats delta, which counts the
// commands scripts run too) and Redis CPU µs/request (/proc of the private redis-server).
//   npm run bench:chain     (BENCH_SECONDS, BENCH_ROUNDS, BENCH_ADAPTERS=fastify,
//                            BENCH_ONLY=<substring of a variant>, BENCH_PROF=<dir> for --cpu-prof)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CONNECTIONS,
  SECONDS,
  cannon,
  cpuMicros,
  luaScriptNames,
  startApp,
  startRedis,
  waitReady,
} from './lib.mjs';
import { roundTrips } from './chain-trips.mjs';
import {
  VARIANTS,
  WITHOUT_CONCURRENCY,
  WITH_CONCURRENCY,
  WITH_TOKENS,
  appsFile,
  concConfig,
  offConfig,
  onConfig,
  tokConfig,
  presign,
} from './chain-cases.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RUN_SECONDS = Math.max(2, Math.round(SECONDS / 2));
const ADAPTERS = (process.env.BENCH_ADAPTERS ?? 'express,fastify').split(',');
const ONLY = process.env.BENCH_ONLY?.split(',');
const PROF = process.env.BENCH_PROF;
/**
 * The extra bases some rows are also read against: [base variant, column, the rows it serves].
 * A base is measured whenever one of its rows is (BENCH_ONLY picks rows, not bases).
 */
const BASES = [
  // The floor answering a body of the search answer's size and shape: the locks' cost alone.
  ['floor, search-sized answer', '÷ floor (same answer)', /^search from/],
  // Nest's floor for a request that asks Redis once (a guard awaiting one script call).
  ['floor + one Redis round trip', '÷ floor + Redis', /^(search from|signed GET|bloom)/],
  // Nest's floor for a refusal (a guard throwing a ready 401 problem): the guard locks' rejects.
  ['401 from a bare guard (reject floor)', '÷ reject floor', /^(401 forged|429)/],
  // The same demo model with every lock off.
  ['inference, every lock off', '÷ locks off', /^signed inference, demo model/],
  // The same signed inference of one user without the two concurrency rules (app "on"): their cost.
  [WITHOUT_CONCURRENCY, '÷ without concurrency', /concurrency rules$/],
  // The same signed inference of one user without the two token rules (app "on"): their cost.
  [WITHOUT_CONCURRENCY, '÷ without token rules', /token rules$/],
];
const picked = ([n], i) => !ONLY || i < 2 || ONLY.some((o) => n.includes(o));
const needed = new Set(
  BASES.filter(([, , rows]) => VARIANTS.some((v, i) => picked(v, i) && rows.test(v[0]))).map(
    ([base]) => base,
  ),
);
const variants = VARIANTS.filter((v, i) => picked(v, i) || needed.has(v[0]));
// Signed header sets made before each run: more than a run sends on this machine (else signed on the spot).
const PRESIGN = Number(process.env.BENCH_PRESIGN ?? 20_000 * RUN_SECONDS);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(
  `machine load average (1, 5, 15 min) at the start: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')}`,
);
console.log(
  `bench:chain — autocannon ${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${RUN_SECONDS} s per variant after a warm-up (medians); private redis-server`,
);
const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-chain-'));
const redis = await startRedis();
const apps = [];
const start = async (adapter, kind) => {
  const env = {
    HTTP_ADAPTER: adapter,
    APPS_FILE: appsFile,
    SEARCH_SQLITE_PATH: process.env.BENCH_SQLITE ?? join(dir, 'search.sqlite'),
    CONFIG_FILE: { on: onConfig, conc: concConfig, tok: tokConfig, off: offConfig }[kind],
    // A loaded 2-core machine can stall a Redis reply past the 50 ms default: that is not an outage.
    REDIS_COMMAND_TIMEOUT_MS: '1000',
    ...(kind === 'off' ? {} : { REDIS_URL: redis.url, RAMPART_ENV: `bench${kind}${adapter}` }),
  };
  const nodeArgs = PROF ? ['--cpu-prof', `--cpu-prof-dir=${PROF}/${adapter}-${kind}`] : [];
  const app = await startApp(env, { entry: 'test/bench/chain-app.mjs', nodeArgs });
  apps.push(app);
  await waitReady(app.url);
  return app;
};

/** One measured run: autocannon figures plus CPU and Redis deltas per request. */
async function run(name, app, requests, expect) {
  presign(requests, PRESIGN);
  const statuses = {};
  const reqs = requests.map((r) => ({
    ...r,
    onResponse: (s) => (statuses[s] = (statuses[s] ?? 0) + 1),
  }));
  const before = redis.commandstats();
  const cpu0 = cpuMicros(app.pid);
  const rcpu0 = cpuMicros(redis.pid);
  const res = await cannon({ url: app.url, requests: reqs, duration: RUN_SECONDS });
  const cpu = cpuMicros(app.pid) - cpu0;
  const rcpu = cpuMicros(redis.pid) - rcpu0;
  const after = redis.commandstats();
  let calls = 0;
  for (const [k, v] of Object.entries(after)) calls += v.calls - (before[k]?.calls ?? 0);
  const total = Math.max(1, res.requests.total);
  const wrong = Object.entries(statuses).filter(([s]) => Number(s) !== expect);
  if (wrong.length)
    console.warn(`  ${name}: statuses ${JSON.stringify(statuses)} (want ${expect})`);
  return {
    rps: res.requests.average,
    p50: res.latency.p50,
    p99: res.latency.p99,
    cpu: cpu / total,
    cmds: calls / total,
    rcpu: rcpu / total,
  };
}

const rows = [];
const pairs = [];
const callLines = [];
const scriptNames = await luaScriptNames();
try {
  for (const adapter of ADAPTERS) {
    const on = await start(adapter, 'on');
    const off = variants.some(([, kind]) => kind === 'off') ? await start(adapter, 'off') : on;
    const conc = variants.some(([, kind]) => kind === 'conc') ? await start(adapter, 'conc') : on;
    const tok = variants.some(([, kind]) => kind === 'tok') ? await start(adapter, 'tok') : on;
    const appOf = (kind) => ({ on, off, conc, tok })[kind];
    for (const [, kind, requests] of variants)
      await cannon({ url: appOf(kind).url, requests, duration: Math.min(2, RUN_SECONDS) });
    const results = new Map(variants.map(([n]) => [n, []]));
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, kind, requests, expect] of variants)
        results.get(name).push(await run(name, appOf(kind), requests, expect));
    const trips = new Map();
    for (const [name, kind, requests] of variants) {
      const { perRequest, seen } = await roundTrips(redis, appOf(kind), requests, scriptNames);
      trips.set(name, perRequest);
      // What the round trips were (a script call by its lua/ name), for the rows that saw any.
      const named = Object.entries(seen);
      if (named.length)
        callLines.push({
          adapter,
          variant: name,
          calls: named.map(([c, n]) => `${c} ×${n}`).join(', '),
        });
    }
    const med = (name, k) => median(results.get(name).map((r) => r[k]));
    // A ratio is the median of the per-round ratios (both runs of a pair from the same round,
    // seconds apart), so a slow stretch of a shared machine moves both sides of a ratio alike.
    const ratio = (name, base) =>
      +median(results.get(name).map((r, i) => r.rps / results.get(base)[i].rps)).toFixed(2);
    const [bare, floor] = [variants[0][0], variants[1][0]];
    for (const [name] of variants) {
      rows.push({
        adapter,
        variant: name,
        'req/s': Math.round(med(name, 'rps')),
        p50: med(name, 'p50'),
        p99: med(name, 'p99'),
        '÷ bare': ratio(name, bare),
        '÷ floor': ratio(name, floor),
        ...Object.fromEntries(
          BASES.filter(([base, , rows]) => rows.test(name) && results.has(base)).map(
            ([base, column]) => [column, ratio(name, base)],
          ),
        ),
        'node µs/req': Math.round(med(name, 'cpu')),
        'redis calls/req': +trips.get(name).toFixed(2),
        'redis cmd/req': +med(name, 'cmds').toFixed(2),
        'redis µs/req': +med(name, 'rcpu').toFixed(1),
      });
    }
    for (const [w, label] of [
      [WITH_CONCURRENCY, 'two concurrency rules'],
      [WITH_TOKENS, 'two token rules'],
    ]) {
      const wo = WITHOUT_CONCURRENCY;
      if (!results.has(w) || !results.has(wo)) continue;
      pairs.push({
        adapter,
        pair: label,
        'req/s without': Math.round(med(wo, 'rps')),
        'req/s with': Math.round(med(w, 'rps')),
        'req/s ÷': ratio(w, wo),
        'cmd/req without': +med(wo, 'cmds').toFixed(2),
        'cmd/req with': +med(w, 'cmds').toFixed(2),
        'cmd/req ÷': +(med(w, 'cmds') / med(wo, 'cmds')).toFixed(2),
        'calls/req without': +trips.get(wo).toFixed(2),
        'calls/req with': +trips.get(w).toFixed(2),
      });
    }
    for (const a of apps.splice(0)) await a.stop();
  }
} finally {
  for (const a of apps) await a.stop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.table(rows);
console.log(
  "Redis round trips while 400 requests of a row ran (MONITOR), by command or script; (timer): the app's own, not counted:",
);
console.table(callLines);
if (pairs.length) {
  console.log('two concurrency rules / two token rules (app + user), side by side: with ÷ without');
  console.table(pairs);
}
console.log('goals (issue 32, "the speed goals, restated"): medians of the per-round ratios above');
console.table(goals(rows));
console.log(
  `machine load average (1, 5, 15 min) at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')}`,
);

/**
 * One row per goal and adapter: the measured value and met / NOT MET (— when its rows were not
 * run, e.g. with BENCH_ONLY). Redis "0 calls" on a reject path: at most the reject floor's
 * calls per request + 0.05. The app's timers are not counted (chain-trips.mjs); the reject floor's
 * ready 401 is a `bad_signature` answer, so its risk signals are written as a forged request's are
 * (one batched call per 20 ms, not per request): its figure is what any refusal costs at that pace.
 */
function goals(rows) {
  const out = [];
  for (const adapter of ADAPTERS) {
    const row = (v) => rows.find((r) => r.adapter === adapter && r.variant === v);
    // The reject floor's guard asks Redis nothing: its calls are its 401s' batched risk signals.
    const background = row('401 from a bare guard (reject floor)')?.['redis calls/req'] ?? 0;
    const goal = (name, variant, column, ok, want) => {
      const v = row(variant)?.[column];
      out.push({
        adapter,
        goal: name,
        want,
        measured: v ?? '—',
        result: v === undefined ? '—' : ok(v) ? 'met' : 'NOT MET',
      });
    };
    const wholeChain = adapter === 'fastify' ? 0.5 : 0.7;
    goal(
      '401 forged ÷ reject floor',
      '401 forged signature',
      '÷ reject floor',
      (v) => v >= 0.85,
      '≥ 0.85',
    );
    goal(
      '429 known-blocked ÷ reject floor',
      '429 known-blocked',
      '÷ reject floor',
      (v) => v >= 0.85,
      '≥ 0.85',
    );
    goal(
      'signed whoami ÷ floor + Redis',
      'signed GET /v1/whoami',
      '÷ floor + Redis',
      (v) => v >= 0.85,
      '≥ 0.85',
    );
    for (const v of ['search from the result cache', 'signed GET /v1/whoami'])
      goal(`whole chain ÷ bare: ${v}`, v, '÷ bare', (x) => x >= wholeChain, `≥ ${wholeChain}`);
    goal(
      '@Protect, every lock off ÷ floor',
      '@Protect, every lock off',
      '÷ floor',
      (v) => v >= 0.95,
      '≥ 0.95',
    );
    for (const v of [
      'search from the result cache',
      'signed GET /v1/whoami',
      'signed inference, demo model',
      'bloom-absent search',
    ])
      goal(`Redis round trips / allowed request: ${v}`, v, 'redis calls/req', (x) => x <= 1, '≤ 1');
    for (const v of ['401 forged signature', '429 known-blocked'])
      goal(
        `Redis round trips on ${v}`,
        v,
        'redis calls/req',
        (x) => x <= background + 0.05,
        `0 (≤ background ${background} + 0.05)`,
      );
  }
  return out;
}

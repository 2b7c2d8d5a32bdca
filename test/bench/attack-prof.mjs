// bench:attack's flood against ONE instance, with a CPU profile of the flood only (chain-prof-hook.mjs) and the
// instance's own event-loop delay (attack-trace.mjs). Never shipped.
//   npm run build && PROF_OUT=/tmp/flood.cpuprofile PROF_FLOOD=junk,blocked node test/bench/attack-prof.mjs
// PROF_FLOOD: any of junk, blocked, forged (default junk,blocked); PROF_SECONDS (8) per phase; the well-behaved
// signed searches (PROF_GOOD_RPS, 100/s, each its own app and address) run alone, then under the flood: their
// p50/p99 in each phase and the instance's loop delay are printed.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { spawnFakeOpenAI } from './fake-openai-server.mjs';
import { ROOT, cpuMicros, startApp, startRedis, waitReady, writeConfig } from './lib.mjs';
import { CHAT, CITIES, send } from './attack-clients.mjs';

const SECONDS = Number(process.env.PROF_SECONDS ?? 8);
const FLOOD = (process.env.PROF_FLOOD ?? 'junk,blocked').split(',');
const GOOD_RPS = Number(process.env.PROF_GOOD_RPS ?? 100);
const BLOCKED = ['10.250.0.1', '10.250.0.2', '10.250.0.3', '10.250.0.4'];
const { signRequest } = await import(`${ROOT}dist/src/sdk/index.js`);
const secret = () => randomBytes(32).toString('base64url');
const apps = Array.from({ length: 200 }, (_, i) => ({ id: `prof-${i}`, secret: secret() }));
const target = { id: 'forged-target', secret: secret() };
const appsFile = writeConfig(
  {
    apps: [...apps, target].map((a) => ({
      id: a.id,
      tier: 'pro',
      secrets: [{ id: 'k1', secret: a.secret }],
    })),
  },
  'apps.json',
);
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const rnd = (k) => Math.floor(Math.random() * k);
let n = 0;
const forged = Array.from({ length: 200 }, (_, i) => {
  const body = CHAT(-1, i);
  const path = '/v1/chat/completions';
  const headers = {
    'content-type': 'application/json',
    'x-forwarded-for': `10.230.${i >> 8}.${i & 255}`,
    ...signRequest({ appId: target.id, secret: secret(), method: 'POST', url: path, body }),
  };
  return { method: 'POST', path, headers, body };
});
const MAKE = {
  junk: () => ({
    path: `/v1/search?q=${Array.from({ length: 8 }, () => String.fromCharCode(97 + rnd(26))).join('')}`,
    headers: { 'x-forwarded-for': `10.${100 + rnd(100)}.${rnd(256)}.${1 + rnd(250)}` },
  }),
  blocked: () => ({
    path: `/v1/search?q=${CITIES[n % CITIES.length]}`,
    headers: { 'x-forwarded-for': BLOCKED[n++ % 4] },
  }),
  forged: () => forged[n++ % forged.length],
};
const flood = (url, seconds) =>
  FLOOD.map(
    (k) =>
      new Promise((resolve, reject) => {
        const statuses = {};
        const inst = autocannon(
          {
            url,
            connections: 8,
            duration: seconds,
            requests: [{ setupRequest: (r) => ({ ...r, ...MAKE[k]() }) }],
          },
          (err, res) => (err ? reject(err) : resolve({ k, rps: res.requests.average, statuses })),
        );
        inst.on('response', (_c, s) => (statuses[s] = (statuses[s] ?? 0) + 1));
      }),
  );
async function good(url, seconds) {
  const until = performance.now() + seconds * 1000;
  const ms = [];
  const pending = [];
  for (let i = 0; performance.now() < until; i++) {
    const app = apps[i % apps.length];
    const path = `/v1/search?q=${CITIES[i % CITIES.length]}&limit=5`;
    const headers = {
      'x-forwarded-for': `10.1.${(i >> 8) & 255}.${i & 255}`,
      ...signRequest({ appId: app.id, secret: app.secret, method: 'GET', url: path }),
    };
    pending.push(send(url, { method: 'GET', path, headers }).then((r) => ms.push(r.ms)));
    await new Promise((r) => setTimeout(r, 1000 / GOOD_RPS));
  }
  await Promise.all(pending);
  ms.sort((a, b) => a - b);
  const q = (p) => ms[Math.floor((ms.length - 1) * p)].toFixed(1);
  return `${ms.length} good searches: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`;
}
const redis = await startRedis();
const fake = await spawnFakeOpenAI({ FAKE_CHUNK_DELAY_MS: '0', FAKE_LATENCY_MS: '5' });
const trace = join(tmpdir(), `attack-prof-${process.pid}.jsonl`);
// GC per phase: every GC's kind and duration, summed, in a file the bench reads at each phase's end.
const gcFile = join(tmpdir(), `attack-prof-gc-${process.pid}.json`);
const gcHook = join(tmpdir(), `attack-prof-gc-${process.pid}.mjs`);
writeFileSync(
  gcHook,
  `import { PerformanceObserver } from 'node:perf_hooks'; import { writeFileSync } from 'node:fs';
const t = {}; new PerformanceObserver((l) => { for (const e of l.getEntries()) { const k = e.detail?.kind ?? e.kind;
const r = (t[k] ??= [0, 0, 0]); r[0]++; r[1] += e.duration; r[2] = Math.max(r[2], e.duration); } }).observe({ entryTypes: ['gc'] });
setInterval(() => writeFileSync(${JSON.stringify(gcFile)}, JSON.stringify(t)), 250).unref();`,
);
const gcs = () => JSON.parse(readFileSync(gcFile, 'utf8'));
const gcDiff = (a, b) =>
  Object.entries(b)
    .map(
      ([k, [n, ms, max]]) =>
        `kind ${k}: ${n - (a[k]?.[0] ?? 0)}× ${(ms - (a[k]?.[1] ?? 0)).toFixed(0)} ms (max ever ${max.toFixed(1)})`,
    )
    .join(', ');
const hook = process.env.PROF_HOOK ?? new URL('./chain-prof-hook.mjs', import.meta.url).pathname;
const tracer = new URL('./attack-trace.mjs', import.meta.url).pathname;
const app = await startApp(
  {
    REDIS_URL: redis.url,
    RAMPART_ENV: 'attack-prof',
    APPS_FILE: appsFile,
    TRUSTED_PROXIES: '127.0.0.1/32',
    INFERENCE_UPSTREAM_URL: fake.url,
    ADMIN_TOKEN,
    LOG_LEVEL: 'error',
    REDIS_COMMAND_TIMEOUT_MS: '1000',
    ATTACK_TRACE_FILE: trace,
  },
  {
    entry: `${process.env.PROF_DIST ?? 'dist'}/src/main.js`,
    nodeArgs: [
      ...(process.env.PROF_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      hook,
      '--import',
      tracer,
      '--import',
      gcHook,
    ],
  },
);
const loopOf = (from, to) => {
  const rows = readFileSync(trace, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const s = rows.filter((r) => r.sec && r.sec >= from && r.sec <= to + 1000);
  return `loop p99 max ${Math.max(...s.map((r) => r.loopP99)).toFixed(1)} ms, loop max ${Math.max(...s.map((r) => r.loopMax)).toFixed(1)} ms, cpu ${(s.reduce((a, r) => a + r.cpuMs, 0) / s.length).toFixed(0)} ms/s`;
};
/** rampart_redis_script_seconds by script: [sum, count]; `diff` of two scrapes as "script: n calls, mean ms". */
const scripts = async () => {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const out = {};
  for (const m of text.matchAll(
    /^rampart_redis_script_seconds_(sum|count)\{script="([^"]+)"\} (\S+)/gm,
  ))
    (out[m[2]] ??= [0, 0])[m[1] === 'sum' ? 0 : 1] = Number(m[3]);
  return out;
};
const diff = (a, b) =>
  Object.entries(b)
    .map(([k, [s, c]]) => [k, s - (a[k]?.[0] ?? 0), c - (a[k]?.[1] ?? 0)])
    .filter(([, , c]) => c > 0)
    .map(([k, s, c]) => `${k} ${c}× ${((1000 * s) / c).toFixed(1)} ms`)
    .join(', ');
try {
  await waitReady(app.url);
  for (const subject of BLOCKED.slice(0, 2))
    await fetch(`${app.url}/admin/bans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dimension: 'ip', subject, global: true, ttlSeconds: 3600 }),
    });
  await Promise.all([good(app.url, 3), ...flood(app.url, 3)]); // warm-up
  let t = performance.timeOrigin + performance.now();
  let m0 = await scripts();
  await new Promise((r) => setTimeout(r, 300));
  let g0 = gcs();
  console.log(
    'alone:',
    await good(app.url, SECONDS),
    '|',
    loopOf(t, performance.timeOrigin + performance.now()),
  );
  console.log('  redis:', diff(m0, await scripts()));
  await new Promise((r) => setTimeout(r, 300));
  console.log('  gc:', gcDiff(g0, gcs()));
  await new Promise((r) => setTimeout(r, 1500));
  if (process.env.PROF_OUT) process.kill(app.pid, 'SIGUSR2');
  m0 = await scripts();
  g0 = gcs();
  const cpu0 = cpuMicros(app.pid);
  t = performance.timeOrigin + performance.now();
  const [g, ...f] = await Promise.all([good(app.url, SECONDS), ...flood(app.url, SECONDS)]);
  const cpu = cpuMicros(app.pid) - cpu0;
  if (process.env.PROF_OUT) process.kill(app.pid, 'SIGUSR2');
  console.log('flood:', g, '|', loopOf(t, performance.timeOrigin + performance.now()));
  const total = f.reduce((s, x) => s + x.rps * SECONDS, 0) + GOOD_RPS * SECONDS;
  console.log('  redis:', diff(m0, await scripts()));
  await new Promise((r) => setTimeout(r, 300));
  console.log('  gc:', gcDiff(g0, gcs()));
  for (const x of f) console.log(`  ${x.k}: ${Math.round(x.rps)}/s ${JSON.stringify(x.statuses)}`);
  console.log(
    `  instance CPU ${(cpu / 1000 / SECONDS).toFixed(0)} ms/s, ~${Math.round(cpu / total)} µs/request; load ${loadavg()[0].toFixed(1)}`,
  );
  await new Promise((r) => setTimeout(r, 1000));
  if (process.env.PROF_REDIS_STATS) {
    const { execFileSync } = await import('node:child_process');
    const info = execFileSync('redis-cli', ['-u', redis.url, 'info', 'commandstats'], {
      encoding: 'utf8',
    });
    console.log(
      info
        .split('\n')
        .filter((l) => /calls=/.test(l))
        .join('\n'),
    );
    console.log(
      execFileSync('redis-cli', ['-u', redis.url, 'slowlog', 'get', '5'], {
        encoding: 'utf8',
      }).slice(0, 1500),
    );
  }
} finally {
  await app.stop();
  await fake.stop();
  await redis.stop();
}

// bench:signature — lock 1 on the same route (GET /v1/whoami, signature
// `optional`, every other lock off), on express and on fastify, in one run:
//   unsigned      → passes as anonymous (baseline)
//   signed        → HMAC verified + nonce claimed in Redis (SET NX PX)
//   signed (mem)  → same, nonce in the in-process store (no Redis configured)
//   forged        → known app, wrong secret: 401 bad_signature (logged)
//   unknown app   → 401 unknown_app (MAC computed against a dummy key)
// Every request is built in autocannon's setupRequest (fresh timestamp and
// nonce for the signed ones), so the client does the same work per request in
// every row except the HMAC. Prints req/s, latency, the ratio to unsigned, and
// the Redis commands each phase caused (INFO commandstats on a private
// redis-server): forged requests must cause none.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  CONNECTIONS,
  ROOT,
  SECONDS,
  cannon,
  cpuMicros,
  startApp,
  startRedis,
  table,
  writeConfig,
} from './lib.mjs';

const SDK = `${ROOT}dist/src/sdk/index.js`;
if (!existsSync(SDK)) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
const { signRequest } = await import(SDK);

const APP = { id: 'bench-app', secret: randomBytes(32).toString('base64url') };
const appsFile = writeConfig(
  { apps: [{ id: APP.id, tier: 'pro', secrets: [{ id: 'k1', secret: APP.secret }] }] },
  'apps.json',
);
// Only the signature lock runs: every other lock is off on the shipped policies (and on whoami, the measured route).
const othersOff = {
  rateLimit: { mode: 'off' },
  cacheShield: { mode: 'off' },
  circuitBreaker: { mode: 'off' },
};
const configFile = writeConfig({
  policies: {
    ...Object.fromEntries(
      ['search', 'search-item', 'inference', 'admin'].map((p) => [p, { locks: othersOff }]),
    ),
    whoami: { locks: { signature: { mode: 'enforce', signed: 'optional' }, ...othersOff } },
  },
});
const PATH = '/v1/whoami';

/** A request built afresh for every send; `sign` adds the signature headers (or nothing). Counts answers by status. */
function requests(sign, statuses) {
  return [
    {
      method: 'GET',
      path: PATH,
      setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...sign() } }),
      onResponse: (status) => (statuses[status] = (statuses[status] ?? 0) + 1),
    },
  ];
}
const phases = {
  unsigned: () => ({}),
  signed: () => signRequest({ appId: APP.id, secret: APP.secret, method: 'GET', url: PATH }),
  // Forged requests carry recognisable nonces, so MONITOR can attribute any nonce command to them.
  forged: () =>
    signRequest({
      appId: APP.id,
      secret: 'forged-forged-forged-forged-forged-forged',
      method: 'GET',
      url: PATH,
      nonce: `forged-${randomBytes(12).toString('base64url')}`,
    }),
  'unknown app': () =>
    signRequest({
      appId: 'no-such-app',
      secret: APP.secret,
      method: 'GET',
      url: PATH,
      nonce: `unknown-${randomBytes(12).toString('base64url')}`,
    }),
};
const WATCHED = new Set(['forged', 'unknown app']);

/**
 * Every command Redis receives while `fn` runs (MONITOR on the private
 * server), split into nonce-store commands (keys `nonce:…`) and the rest
 * (other modules' background work, e.g. the rate limiter's heartbeat).
 */
async function monitor(port, fn) {
  const child = spawn('redis-cli', ['-p', String(port), 'monitor'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let text = '';
  child.stdout.on('data', (d) => (text += d));
  await new Promise((r) => setTimeout(r, 200));
  try {
    return { result: await fn(), ...classify(text) };
  } finally {
    child.kill('SIGKILL');
  }
}
function classify(text) {
  let nonce = 0;
  const other = {};
  for (const line of text.split('\n')) {
    const m = /^\d+\.\d+ \[(\d+ [^\]]+)\] "([^"]+)"(.*)$/.exec(line);
    if (!m || m[1].endsWith(' lua')) continue;
    // A nonce command caused by a forged / unknown-app request would carry its recognisable nonce or app id.
    if (/"nonce:[^"]*(:forged-|:unknown-|:no-such-app:)/.test(m[3])) nonce++;
    else {
      const cmd = m[3].includes('"nonce:')
        ? `${m[2].toLowerCase()} nonce (earlier signed requests)`
        : m[2].toLowerCase();
      other[cmd] = (other[cmd] ?? 0) + 1;
    }
  }
  return { nonce, other };
}

/** Waits until the app has finished the previous run's requests (no new SET for 500 ms). */
async function quiesce() {
  let last = -1;
  for (;;) {
    const now = redis.commandstats().set?.calls ?? 0;
    if (now === last) return;
    last = now;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * One measured run of a phase; returns req/s, latency, the answers by
 * status, the app's CPU time per request (robust on a shared machine), Redis
 * SETs, and — when watched — the nonce-store commands MONITOR saw.
 */
async function run(app, sign, watch) {
  await quiesce();
  const statuses = {};
  const before = redis.commandstats();
  const cpu0 = cpuMicros(app.pid);
  const go = () =>
    cannon({ url: app.url, requests: requests(sign, statuses), duration: RUN_SECONDS });
  const m = watch ? await monitor(redis.port, go) : { result: await go() };
  const cpu = cpuMicros(app.pid) - cpu0;
  const after = redis.commandstats();
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    res: m.result,
    statuses,
    cpuPerReq: cpu / total,
    set: (after.set?.calls ?? 0) - (before.set?.calls ?? 0),
    nonce: m.nonce,
    other: m.other,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUN_SECONDS = Math.max(2, Math.round(SECONDS / 2));

console.log(
  `bench:signature — autocannon ${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${RUN_SECONDS} s per case after a warm-up (medians shown); private redis-server; LOG_LEVEL=warn`,
);
const redis = await startRedis();
const rows = [];
const nonceCalls = [];
try {
  for (const adapter of ['express', 'fastify']) {
    const env = { HTTP_ADAPTER: adapter, CONFIG_FILE: configFile, APPS_FILE: appsFile };
    const app = await startApp({
      ...env,
      REDIS_URL: redis.url,
      RAMPART_ENV: `bench${Date.now().toString(36)}`,
    });
    const mem = await startApp(env);
    const cases = [
      ...Object.entries(phases).map(([name, sign]) => ({ name, app, sign })),
      { name: 'signed (memory nonces)', app: mem, sign: phases.signed },
    ];
    try {
      for (const c of cases)
        await cannon({
          url: c.app.url,
          requests: requests(c.sign, {}),
          duration: Math.min(3, SECONDS),
        });
      const results = new Map(cases.map((c) => [c.name, []]));
      // Interleaved rounds: the machine's load drifts, so every case sees the same drift.
      for (let round = 0; round < ROUNDS; round++) {
        for (const c of cases)
          results.get(c.name).push(await run(c.app, c.sign, WATCHED.has(c.name)));
      }
      for (const c of cases) {
        const rs = results.get(c.name);
        const statuses = {};
        for (const r of rs)
          for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
        const row = {
          adapter,
          case: c.name,
          reqPerSec: Math.round(median(rs.map((r) => r.res.requests.average))),
          p50: median(rs.map((r) => r.res.latency.p50)),
          p99: median(rs.map((r) => r.res.latency.p99)),
          statuses: JSON.stringify(statuses),
          'app CPU µs/req': Math.round(median(rs.map((r) => r.cpuPerReq))),
          'SET Δ': c.app === mem ? '-' : rs.reduce((a, r) => a + r.set, 0),
          nonceCmds: WATCHED.has(c.name) ? rs.reduce((a, r) => a + r.nonce, 0) : '-',
          'other redis cmds (MONITOR)': WATCHED.has(c.name)
            ? JSON.stringify(
                rs
                  .map((r) => r.other)
                  .reduce((a, o) => {
                    for (const [k, v] of Object.entries(o)) a[k] = (a[k] ?? 0) + v;
                    return a;
                  }, {}),
              )
            : '-',
        };
        if (WATCHED.has(c.name)) nonceCalls.push(row.nonceCmds);
        rows.push(row);
      }
    } finally {
      await app.stop();
      await mem.stop();
    }
  }
} finally {
  await redis.stop();
}
table(rows);

// The lock's own cost, in process, without HTTP: verification per request (no nonce claim).
const { verifyRequest } = await import(`${ROOT}dist/src/locks/signature/verify-request.js`);
const { parseAppDefinition } = await import(
  `${ROOT}dist/src/locks/signature/apps/app-definition.js`
);
const { contentDigest } = await import(`${ROOT}dist/src/locks/signature/rfc9421/content-digest.js`);
const { createSigner, httpbis } = await import('http-message-signatures');
const now = Date.now();
const registry = new Map([
  [
    APP.id,
    parseAppDefinition(
      { id: APP.id, tier: 'pro', secrets: [{ id: 'k1', secret: APP.secret }] },
      'app',
      now,
    ).app,
  ],
]);
const kb = Buffer.from(
  JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'x'.repeat(960) }] }),
);
const view = (method, target, headers, body = Buffer.alloc(0)) => ({
  method,
  target,
  headers: { host: 'bench', ...headers },
  body,
  scheme: 'http',
});
const hmacView = (body, o = {}) =>
  view(
    'POST',
    '/v1/inference?a=1',
    signRequest({
      appId: APP.id,
      secret: APP.secret,
      method: 'POST',
      url: '/v1/inference?a=1',
      body,
      timestamp: now,
      ...o,
    }),
    body,
  );
const rfc = await httpbis.signMessage(
  {
    key: createSigner(Buffer.from(APP.secret), 'hmac-sha256', APP.id),
    fields: ['@method', '@path', '@query', 'content-digest'],
    params: ['created', 'keyid', 'alg', 'nonce'],
    paramValues: { nonce: 'bench-nonce-0123456789', created: new Date(now) },
  },
  {
    method: 'POST',
    url: 'http://bench/v1/inference?a=1',
    headers: { 'content-digest': contentDigest(kb) },
  },
);
const cases = {
  'HMAC, GET, no body': view(
    'GET',
    '/v1/whoami',
    signRequest({
      appId: APP.id,
      secret: APP.secret,
      method: 'GET',
      url: '/v1/whoami',
      timestamp: now,
    }),
  ),
  'HMAC, POST, 1 KB body': hmacView(kb),
  'HMAC, forged (bad_signature)': hmacView(kb, {
    secret: 'forged-forged-forged-forged-forged-forged',
  }),
  'HMAC, unknown app': hmacView(kb, { appId: 'no-such-app' }),
  'RFC 9421, POST, 1 KB body + content-digest': view(
    'POST',
    '/v1/inference?a=1',
    Object.fromEntries(Object.entries(rfc.headers).map(([k, v]) => [k.toLowerCase(), v])),
    kb,
  ),
  'unsigned (optional route)': view('GET', '/v1/whoami', {}),
};
const micro = [];
for (const [name, v] of Object.entries(cases)) {
  const opts = { now, defaultSkewSeconds: 180 };
  const r = verifyRequest(v, registry, opts);
  const n = 50_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) verifyRequest(v, registry, opts);
  const us = ((performance.now() - t0) * 1000) / n;
  micro.push({
    case: name,
    outcome: r.ok ? 'ok' : r.unsigned ? 'unsigned' : r.code,
    'µs/verify': +us.toFixed(2),
  });
}
console.log('verification alone, in process (no HTTP, no nonce claim):');
table(micro);
const pick = (adapter, c, k) => rows.find((r) => r.adapter === adapter && r.case === c)[k];
for (const adapter of ['express', 'fastify']) {
  const parts = ['signed', 'signed (memory nonces)', 'forged', 'unknown app'].map((c) => {
    const rps = (pick(adapter, c, 'reqPerSec') / pick(adapter, 'unsigned', 'reqPerSec')).toFixed(3);
    const cpu = (
      pick(adapter, c, 'app CPU µs/req') / pick(adapter, 'unsigned', 'app CPU µs/req')
    ).toFixed(3);
    return `${c}: req/s ×${rps}, CPU/req ×${cpu}`;
  });
  console.log(`${adapter} vs unsigned — ${parts.join('; ')}`);
}
if (nonceCalls.some((n) => n !== 0)) {
  console.error('FAIL: forged requests reached the nonce store', nonceCalls);
  process.exit(1);
}
console.log(
  'forged and unknown-app requests: 0 nonce-store commands for their nonces seen by Redis MONITOR (other commands listed: background work of other modules, or late signed requests of the previous run).',
);

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
import { CONNECTIONS, ROOT, SECONDS, cannon, cpuMicros, startApp, startRedis, summary, table, writeConfig } from './lib.mjs';

const SDK = `${ROOT}dist/src/sdk/index.js`;
if (!existsSync(SDK)) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
const { signRequest } = await import(SDK);

const APP = { id: 'bench-app', secret: randomBytes(32).toString('base64url') };
const appsFile = writeConfig({ apps: [{ id: APP.id, tier: 'pro', secrets: [{ id: 'k1', secret: APP.secret }] }] }, 'apps.json');
// Only the signature lock runs: every other lock is off on the shipped policies (and on whoami, the measured route).
const othersOff = { rateLimit: { mode: 'off' }, cacheShield: { mode: 'off' }, circuitBreaker: { mode: 'off' } };
const configFile = writeConfig({
  policies: {
    ...Object.fromEntries(['search', 'search-item', 'inference', 'admin'].map((p) => [p, { locks: othersOff }])),
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
  forged: () => signRequest({ appId: APP.id, secret: 'forged-forged-forged-forged-forged-forged', method: 'GET', url: PATH }),
  'unknown app': () => signRequest({ appId: 'no-such-app', secret: APP.secret, method: 'GET', url: PATH }),
};
const WATCHED = new Set(['forged', 'unknown app']);

/**
 * Every command Redis receives while `fn` runs (MONITOR on the private
 * server), split into nonce-store commands (keys `nonce:…`) and the rest
 * (other modules' background work, e.g. the rate limiter's heartbeat).
 */
async function monitor(port, fn) {
  const child = spawn('redis-cli', ['-p', String(port), 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
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
    if (m[3].includes('"nonce:')) nonce++;
    else other[m[2].toLowerCase()] = (other[m[2].toLowerCase()] ?? 0) + 1;
  }
  return { nonce, other };
}

/**
 * One phase: a discarded warm-up, then a measured run; reports req/s,
 * latency, the answers by status, the app's CPU time per request (robust on
 * a shared machine), Redis SETs, and — when watched — what MONITOR saw.
 */
async function phase(app, sign, watch) {
  await cannon({ url: app.url, requests: requests(sign, {}), duration: Math.min(3, SECONDS) });
  const statuses = {};
  const before = redis.commandstats();
  const cpu0 = cpuMicros(app.pid);
  const run = () => cannon({ url: app.url, requests: requests(sign, statuses) });
  let res;
  let seen;
  if (watch) {
    const m = await monitor(redis.port, run);
    res = m.result;
    seen = m;
  } else {
    res = await run();
  }
  const cpu = cpuMicros(app.pid) - cpu0;
  const after = redis.commandstats();
  const s = summary(res);
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    reqPerSec: s.reqPerSec,
    p50: s.p50,
    p99: s.p99,
    statuses: JSON.stringify(statuses),
    'app CPU µs/req': Math.round(cpu / total),
    'SET Δ': (after.set?.calls ?? 0) - (before.set?.calls ?? 0),
    nonceCmds: seen ? seen.nonce : '-',
    'other redis cmds (MONITOR)': seen ? JSON.stringify(seen.other) : '-',
  };
}

console.log(`bench:signature — autocannon ${CONNECTIONS} connections, ${SECONDS} s per run after a warm-up; private redis-server; LOG_LEVEL=warn`);
const redis = await startRedis();
const rows = [];
const nonceCalls = [];
try {
  for (const adapter of ['express', 'fastify']) {
    const env = { HTTP_ADAPTER: adapter, CONFIG_FILE: configFile, APPS_FILE: appsFile };
    const app = await startApp({ ...env, REDIS_URL: redis.url, RAMPART_ENV: `bench${Date.now().toString(36)}` });
    let base;
    try {
      for (const [name, sign] of Object.entries(phases)) {
        const r = await phase(app, sign, WATCHED.has(name));
        base ??= r.reqPerSec;
        rows.push({ adapter, case: name, ...r, ratio: +(r.reqPerSec / base).toFixed(3) });
        if (WATCHED.has(name)) nonceCalls.push(r.nonceCmds);
      }
    } finally {
      await app.stop();
    }
    const mem = await startApp(env);
    try {
      const r = await phase(mem, phases.signed, false);
      rows.push({ adapter, case: 'signed (memory nonces)', ...r, ratio: +(r.reqPerSec / base).toFixed(3), 'SET Δ': '-' });
    } finally {
      await mem.stop();
    }
  }
} finally {
  await redis.stop();
}
table(rows);

// The lock's own cost, in process, without HTTP: verification per request (no nonce claim).
const { verifyRequest } = await import(`${ROOT}dist/src/locks/signature/verify-request.js`);
const { parseAppDefinition } = await import(`${ROOT}dist/src/locks/signature/app-definition.js`);
const { contentDigest } = await import(`${ROOT}dist/src/locks/signature/content-digest.js`);
const { createSigner, httpbis } = await import('http-message-signatures');
const now = Date.now();
const registry = new Map([[APP.id, parseAppDefinition({ id: APP.id, tier: 'pro', secrets: [{ id: 'k1', secret: APP.secret }] }, 'app', now).app]]);
const kb = Buffer.from(JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'x'.repeat(960) }] }));
const view = (method, target, headers, body = Buffer.alloc(0)) => ({ method, target, headers: { host: 'bench', ...headers }, body, scheme: 'http' });
const hmacView = (body, o = {}) => view('POST', '/v1/inference?a=1', signRequest({ appId: APP.id, secret: APP.secret, method: 'POST', url: '/v1/inference?a=1', body, timestamp: now, ...o }), body);
const rfc = await httpbis.signMessage(
  { key: createSigner(Buffer.from(APP.secret), 'hmac-sha256', APP.id), fields: ['@method', '@path', '@query', 'content-digest'], params: ['created', 'keyid', 'alg', 'nonce'], paramValues: { nonce: 'bench-nonce-0123456789', created: new Date(now) } },
  { method: 'POST', url: 'http://bench/v1/inference?a=1', headers: { 'content-digest': contentDigest(kb) } },
);
const cases = {
  'HMAC, GET, no body': view('GET', '/v1/whoami', signRequest({ appId: APP.id, secret: APP.secret, method: 'GET', url: '/v1/whoami', timestamp: now })),
  'HMAC, POST, 1 KB body': hmacView(kb),
  'HMAC, forged (bad_signature)': hmacView(kb, { secret: 'forged-forged-forged-forged-forged-forged' }),
  'HMAC, unknown app': hmacView(kb, { appId: 'no-such-app' }),
  'RFC 9421, POST, 1 KB body + content-digest': view('POST', '/v1/inference?a=1', Object.fromEntries(Object.entries(rfc.headers).map(([k, v]) => [k.toLowerCase(), v])), kb),
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
  micro.push({ case: name, outcome: r.ok ? 'ok' : r.unsigned ? 'unsigned' : r.code, 'µs/verify': +us.toFixed(2) });
}
console.log('verification alone, in process (no HTTP, no nonce claim):');
table(micro);
const pick = (adapter, c, k) => rows.find((r) => r.adapter === adapter && r.case === c)[k];
for (const adapter of ['express', 'fastify']) {
  const parts = ['signed', 'signed (memory nonces)', 'forged', 'unknown app'].map((c) => {
    const rps = (pick(adapter, c, 'reqPerSec') / pick(adapter, 'unsigned', 'reqPerSec')).toFixed(3);
    const cpu = (pick(adapter, c, 'app CPU µs/req') / pick(adapter, 'unsigned', 'app CPU µs/req')).toFixed(3);
    return `${c}: req/s ×${rps}, CPU/req ×${cpu}`;
  });
  console.log(`${adapter} vs unsigned — ${parts.join('; ')}`);
}
if (nonceCalls.some((n) => n !== 0)) {
  console.error('FAIL: forged requests reached the nonce store', nonceCalls);
  process.exit(1);
}
console.log('forged and unknown-app requests: 0 nonce-store commands seen by Redis MONITOR (any other command listed is background work of other modules).');

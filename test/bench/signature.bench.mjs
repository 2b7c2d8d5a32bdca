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
import { CONNECTIONS, ROOT, SECONDS, measure, startApp, startRedis, summary, table, writeConfig } from './lib.mjs';

const SDK = `${ROOT}dist/src/sdk/index.js`;
if (!existsSync(SDK)) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
const { signRequest } = await import(SDK);

const APP = { id: 'bench-app', secret: randomBytes(32).toString('base64url') };
const appsFile = writeConfig({ apps: [{ id: APP.id, tier: 'pro', secrets: [{ id: 'k1', secret: APP.secret }] }] }, 'apps.json');
const configFile = writeConfig({
  policies: {
    whoami: { locks: { signature: { mode: 'enforce', signed: 'optional' }, rateLimit: { mode: 'off' }, cacheShield: { mode: 'off' }, circuitBreaker: { mode: 'off' } } },
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
        const statuses = {};
        const before = redis.commandstats();
        const run = () => measure({ url: app.url, requests: requests(sign, statuses) });
        let res;
        let watch = '-';
        if (WATCHED.has(name)) {
          const m = await monitor(redis.port, run);
          res = m.result;
          watch = `${m.nonce} nonce, other: ${JSON.stringify(m.other)}`;
          nonceCalls.push(m.nonce);
        } else {
          res = await run();
        }
        const after = redis.commandstats();
        const s = summary(res);
        base ??= s.reqPerSec;
        rows.push({ adapter, case: name, ...s, ratio: +(s.reqPerSec / base).toFixed(3), statuses: JSON.stringify(statuses), 'SET Δ': (after.set?.calls ?? 0) - (before.set?.calls ?? 0), 'redis cmds seen (MONITOR)': watch });
      }
    } finally {
      await app.stop();
    }
    const mem = await startApp(env);
    try {
      const statuses = {};
      const s = summary(await measure({ url: mem.url, requests: requests(phases.signed, statuses) }));
      rows.push({ adapter, case: 'signed (memory nonces)', ...s, ratio: +(s.reqPerSec / base).toFixed(3), statuses: JSON.stringify(statuses), 'SET Δ': '-', 'redis cmds seen (MONITOR)': '-' });
    } finally {
      await mem.stop();
    }
  }
} finally {
  await redis.stop();
}
table(rows);
const byCase = (adapter, c) => rows.find((r) => r.adapter === adapter && r.case === c).reqPerSec;
for (const adapter of ['express', 'fastify']) {
  const u = byCase(adapter, 'unsigned');
  console.log(`${adapter}: signed/unsigned ${(byCase(adapter, 'signed') / u).toFixed(3)}, signed(memory)/unsigned ${(byCase(adapter, 'signed (memory nonces)') / u).toFixed(3)}, forged/unsigned ${(byCase(adapter, 'forged') / u).toFixed(3)}, unknown-app/unsigned ${(byCase(adapter, 'unknown app') / u).toFixed(3)}`);
}
if (nonceCalls.some((n) => n !== 0)) {
  console.error('FAIL: forged requests reached the nonce store', nonceCalls);
  process.exit(1);
}
console.log('forged and unknown-app requests: 0 nonce-store commands seen by Redis MONITOR (any other command listed is background work of other modules).');

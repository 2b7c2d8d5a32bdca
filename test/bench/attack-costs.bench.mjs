// bench:attack-costs — what each class of bench:attack's traffic costs one instance, in CPU per request.
// One built instance (HTTP_ADAPTER, default express) on a private redis-server and the fake upstream, the
// shipped policies, TRUSTED_PROXIES=127.0.0.1. Each class alone, closed loop (COST_CONNECTIONS, 8), for
// COST_SECONDS (4), COST_ROUNDS (3) rounds interleaved; the instance's CPU time (/proc) over the run, less its
// idle background (measured over the second before), ÷ the requests answered is the class's cost (steadier on a
// shared machine than req/s):
//   forged       signed inference with a wrong secret for a real app id (401);
//   junk         unsigned search for a random non-word, each from a new address (Bloom "absent": 200);
//   banned       unsigned search from two banned addresses (403, from memory);
//   over quota   unsigned search from two addresses past their per-address quota (429; 10/s get 200);
//   replay       captured signed inference, each accepted once before (401 replayed);
//   good search  signed search for a city, each from its own address (200, from the result cache);
//   good chat    signed inference from many apps (200, fake upstream at COST_BACKEND_MS, 5).
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { loadavg } from 'node:os';
import { spawnFakeOpenAI } from './fake-openai-server.mjs';
import { ROOT, cpuMicros, startApp, startRedis, table, waitReady, writeConfig } from './lib.mjs';
import { CHAT, CITIES, send } from './attack-clients.mjs';

const SECONDS = Number(process.env.COST_SECONDS ?? 4);
const ROUNDS = Number(process.env.COST_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.COST_CONNECTIONS ?? 8);
const ONLY = process.env.COST_ONLY?.split(',');
const BLOCKED = ['10.250.0.1', '10.250.0.2', '10.250.0.3', '10.250.0.4'];
const { signRequest } = await import(`${ROOT}dist/src/sdk/index.js`);
const secret = () => randomBytes(32).toString('base64url');
const apps = Array.from({ length: 200 }, (_, i) => ({ id: `cost-${i}`, secret: secret() }));
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
let n = 0;
const rnd = (k) => Math.floor(Math.random() * k);
const addr = (a) => `10.${a}.${rnd(256)}.${1 + rnd(250)}`;
const chat = (app, i, xff) => {
  const body = CHAT(i, n);
  const path = '/v1/chat/completions';
  const headers = {
    'content-type': 'application/json',
    'x-forwarded-for': xff,
    ...signRequest({ appId: app.id, secret: app.secret, method: 'POST', url: path, body }),
  };
  return { method: 'POST', path, headers, body };
};
const forged = Array.from({ length: 200 }, (_, i) =>
  chat({ id: target.id, secret: secret() }, i, `10.230.${i >> 8}.${i & 255}`),
);

const CLASSES = {
  forged: () => forged[n++ % forged.length],
  junk: () => ({
    method: 'GET',
    path: `/v1/search?q=${Array.from({ length: 8 }, () => String.fromCharCode(97 + rnd(26))).join('')}`,
    headers: { 'x-forwarded-for': addr(100 + rnd(100)) },
  }),
  banned: () => ({
    method: 'GET',
    path: `/v1/search?q=${CITIES[n % CITIES.length]}`,
    headers: { 'x-forwarded-for': BLOCKED[n++ % 2] },
  }),
  'over quota': () => ({
    method: 'GET',
    path: `/v1/search?q=${CITIES[n % CITIES.length]}`,
    headers: { 'x-forwarded-for': BLOCKED[2 + (n++ % 2)] },
  }),
  replay: (app) => app.captured[n++ % app.captured.length],
  'good search': () => {
    const path = `/v1/search?q=${CITIES[n % CITIES.length]}&limit=5`;
    const app = apps[n++ % apps.length];
    return {
      method: 'GET',
      path,
      headers: {
        'x-forwarded-for': addr(1 + rnd(50)),
        ...signRequest({ appId: app.id, secret: app.secret, method: 'GET', url: path }),
      },
    };
  },
  'good chat': () => chat(apps[n++ % apps.length], n, addr(1 + rnd(50))),
};

function run(url, make) {
  const statuses = {};
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: SECONDS,
        requests: [{ setupRequest: (req) => ({ ...req, ...make() }) }],
      },
      (err, res) => (err ? reject(err) : resolve({ res, statuses })),
    );
    inst.on('response', (_c, status) => (statuses[status] = (statuses[status] ?? 0) + 1));
  });
}

const redis = await startRedis();
const fake = await spawnFakeOpenAI({
  FAKE_CHUNK_DELAY_MS: '0',
  FAKE_LATENCY_MS: process.env.COST_BACKEND_MS ?? '5',
});
// COST_DISTS='base:.dist-base,new:dist' measures builds side by side (one instance each, classes interleaved);
// a third field names a CONFIG_FILE for that instance (`hot:dist:/tmp/hot.json`).
const DISTS = (process.env.COST_DISTS ?? 'dist:dist').split(',').map((d) => d.split(':'));
const envOf = (name, config) => ({
  REDIS_URL: redis.url,
  RAMPART_ENV: `attack-costs-${name}`,
  APPS_FILE: appsFile,
  TRUSTED_PROXIES: '127.0.0.1/32',
  INFERENCE_UPSTREAM_URL: fake.url,
  ADMIN_TOKEN,
  LOG_LEVEL: 'error',
  REDIS_COMMAND_TIMEOUT_MS: '1000',
  ...(config ? { CONFIG_FILE: config } : {}),
});
const instances = [];
const rows = {};
try {
  for (const [name, dir, config] of DISTS)
    instances.push({
      name,
      ...(await startApp(envOf(name, config), { entry: `${dir}/src/main.js` })),
    });
  for (const app of instances) {
    await waitReady(app.url);
    for (const subject of BLOCKED.slice(0, 2)) {
      const res = await fetch(`${app.url}/admin/bans`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ dimension: 'ip', subject, global: true, ttlSeconds: 3600 }),
      });
      if (res.status !== 201) throw new Error(`ban: ${res.status} ${await res.text()}`);
    }
    app.captured = [];
    for (let i = 0; i < 50; i++) {
      const r = chat(apps[i], i, addr(1));
      if ((await send(app.url, r)).status === 200) app.captured.push(r);
    }
  }
  const classes = Object.keys(CLASSES).filter((k) => !ONLY || ONLY.includes(k));
  // COST_PARALLEL=1: each class on every instance at once (the same moment's machine for each build: compare
  // their req/s); else one instance at a time, in alternating order.
  const parallel = process.env.COST_PARALLEL === '1';
  const measure = async (app, k) => {
    // The instance's own background (timers, heartbeats, load polls) over one idle second, taken off.
    const idle0 = cpuMicros(app.pid);
    await new Promise((r) => setTimeout(r, 1000));
    const idlePerS = cpuMicros(app.pid) - idle0;
    const cpu0 = cpuMicros(app.pid);
    const t0 = performance.now();
    const { res, statuses } = await run(app.url, () => CLASSES[k](app));
    const cpu = cpuMicros(app.pid) - cpu0 - (idlePerS * (performance.now() - t0)) / 1000;
    return { app, res, statuses, cpu };
  };
  for (let round = 0; round <= ROUNDS; round++)
    for (const k of classes) {
      const order = round % 2 ? [...instances].reverse() : instances;
      const got = [];
      if (parallel) got.push(...(await Promise.all(order.map((app) => measure(app, k)))));
      else for (const app of order) got.push(await measure(app, k));
      if (round === 0) continue; // warm-up
      for (const { app, res, statuses, cpu } of got) {
        const r = (rows[`${k} ${app.name}`] ??= {
          class: k,
          build: app.name,
          requests: 0,
          cpu: 0,
          statuses: {},
          rps: [],
        });
        r.requests += res.requests.total;
        r.cpu += cpu;
        r.rps.push(res.requests.average);
        for (const [s, v] of Object.entries(statuses)) r.statuses[s] = (r.statuses[s] ?? 0) + v;
      }
    }
} finally {
  for (const app of instances) await app.stop();
  await fake.stop();
  await redis.stop();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `bench:attack-costs — ${process.env.HTTP_ADAPTER ?? 'express'}, ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per class and build; load average ${loadavg()[0].toFixed(1)}`,
);
const perReq = (r) => r.cpu / Math.max(1, r.requests);
table(
  Object.values(rows).map((r) => {
    const first = rows[`${r.class} ${DISTS[0][0]}`];
    return {
      class: r.class,
      build: r.build,
      requests: r.requests,
      'req/s (median)': Math.round(median(r.rps)),
      'CPU µs / request': Math.round(perReq(r)),
      [`÷ ${DISTS[0][0]}: req/s, CPU`]: `${(median(r.rps) / median(first.rps)).toFixed(2)}, ${(perReq(r) / perReq(first)).toFixed(2)}`,
      statuses: JSON.stringify(r.statuses),
    };
  }),
);

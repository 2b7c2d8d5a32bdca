// bench:attack — goodput under attack (issue 32), in one run. Two built instances (express) share one
// private redis-server and one fake OpenAI-compatible upstream that is a backend with slots
// (fake-openai-server.mjs, FAKE_SLOTS: a call waits ATTACK_BACKEND_MS × factor × max(1, in flight ÷ slots)),
// TRUSTED_PROXIES=127.0.0.1 (each simulated client sends its own address in X-Forwarded-For).
//   capacity → a short closed-loop probe of the well-behaved mix (many apps and addresses, no pacing) on the
//              shipped policies: the service's capacity C (2xx/s); the well-behaved clients then send C ÷ 2 in
//              total (ATTACK_PACE_MS sets their pace instead and skips the probe).
// Then, for each configuration — the shipped policies ("locks on") and every lock of every policy off (the
// baseline a user would otherwise have), the same pace — phases of BENCH_SECONDS (default 30):
//   alone   → the well-behaved clients only (signed search + signed inference, paced, each its own app and
//             address), in a worker thread of their own (attack-clients.mjs), which measures its own loop delay
//   attack  → the same clients, while at the same time (other worker threads, their own event loops)
//             * forged flood: inference with bad signatures (a real app id, a wrong secret);
//             * junk: random non-words in /v1/search, each from a random one of 6.4 million addresses;
//             * known-blocked repeaters: four addresses hammering search, two banned (POST /admin/bans), two
//               over their per-address quota (their burst spent just before the phase);
//             * replayer: re-sends captured signed inference requests, from its own addresses (four);
//             * slow streams: signed streaming inference whose answers never end, read a chunk at a time;
//             * the backend slows down 10× (ATTACK_SLOW_FACTOR) for 20 s (ATTACK_SLOW_SECONDS, at most 60 %
//               of the phase), starting at a fifth of the phase; its in-flight calls, the breakers' in-flight,
//               limit and waiting (/metrics of both instances, every 250 ms) are read during that window;
//   alone   → the clients only again (the baseline is both "alone" phases together).
// ATTACK_LOAD='{"eventLoopDelay":{"soft":"50ms","hard":"500ms"},"hold":"10s"}' adds a run with those
// rateLimit.load settings (own health on: shed first); ATTACK_ON=0 / ATTACK_OFF=0 skip the shipped / locks-off run;
// ATTACK_BASE=.dist-base runs each locks-on configuration on that build too (side by side).
// ATTACK_ADAPTIVE='{"minLimit":2}' sets the inference breaker's adaptive limit for the "locks on" runs (false: off);
// ATTACK_BREAKER='{"maxWaitMs":2000}' adds other options to that breaker (the fair wait queue).
// Prints per route (search, inference): well-behaved success and p99 alone vs under attack, split into the
// attack with the backend at its normal speed and the requests overlapping its slow window (attack-report.mjs:
// goals ≥ 99 %, ≤ 3×), the backend while slow (latency of admitted calls ÷ its unloaded value × factor, goal
// ≤ 2×; peak in flight; the breaker's queue against its bound), what each attacker got, where the well-behaved
// time went (each instance traces itself with attack-trace.mjs unless ATTACK_TRACE=0: attack-breakdown.mjs),
// and the machine's load average.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import { spawnFakeOpenAI } from './fake-openai-server.mjs';
import { ROOT, startApp, startRedis, table, waitReady, writeConfig } from './lib.mjs';
import { report } from './attack-report.mjs';
import { CHAT, CITIES, send, wall, wellBehaved, wellBehavedRequest } from './attack-clients.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CLIENTS = Number(process.env.ATTACK_CLIENTS ?? 50);
/** Apps made for well-behaved clients: more clients join when half the capacity needs them (below). */
const MAX_CLIENTS = Math.max(CLIENTS, Number(process.env.ATTACK_MAX_CLIENTS ?? 400));
/** At most this many requests per second per well-behaved client (2 searches/s: a fifth of the per-address rule). */
const CLIENT_RATE = 4;
const PROBE_SECONDS = Number(process.env.ATTACK_PROBE_SECONDS ?? Math.min(5, SECONDS));
const PROBE_CONNECTIONS = Number(process.env.ATTACK_PROBE_CONNECTIONS ?? 64);
const FORGED_CONNECTIONS = Number(process.env.ATTACK_FORGED_CONNECTIONS ?? 8);
const JUNK_CONNECTIONS = Number(process.env.ATTACK_JUNK_CONNECTIONS ?? 8);
const BLOCKED_CONNECTIONS = Number(process.env.ATTACK_BLOCKED_CONNECTIONS ?? 8);
const REPLAY_CONNECTIONS = Number(process.env.ATTACK_REPLAY_CONNECTIONS ?? 4);
const SLOW_STREAMS = Number(process.env.ATTACK_SLOW_STREAMS ?? 16);
const BACKEND_MS = Number(process.env.ATTACK_BACKEND_MS ?? 40);
const BACKEND_SLOTS = Number(process.env.ATTACK_BACKEND_SLOTS ?? 32);
const SLOW_FACTOR = Number(process.env.ATTACK_SLOW_FACTOR ?? 10);
const SLOW_SECONDS = Math.min(
  Number(process.env.ATTACK_SLOW_SECONDS ?? 20),
  Math.round(SECONDS * 0.6),
);
const BLOCKED = ['10.250.0.1', '10.250.0.2', '10.250.0.3', '10.250.0.4'];
const LOCKS = ['signature', 'rateLimit', 'cacheShield', 'circuitBreaker'];
const POLICIES = ['search', 'search-item', 'inference', 'models', 'whoami'];
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
/** ATTACK_TRACE=0: the instances run without attack-trace.mjs (no breakdown). */
const TRACE = process.env.ATTACK_TRACE !== '0';
const TRACE_MODULE = new URL('./attack-trace.mjs', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const NICE = Number(process.env.ATTACK_NICE ?? 0);
/** ATTACK_NODE_ARGS='--maglev …': more node flags for the instances (V8 flags are not allowed in NODE_OPTIONS). */
const NODE_ARGS = (process.env.ATTACK_NODE_ARGS ?? '').split(' ').filter(Boolean);
/**
 * ATTACK_PREWARM=s (default 0: off): before the phases, s seconds of a light forged, junk and replay flood from
 * subjects the attack does not use (another app, other addresses), so the instances have run the refusal paths
 * once, as a service up for a while has. A diagnostic: the calm phases never run those paths.
 */
const PREWARM = Number(process.env.ATTACK_PREWARM ?? 0);

/** One autocannon attacker, alone in a worker thread, against both instances until the duration ends. */
async function attacker({ kind, urls, seconds, connections, captured }) {
  let n = 0;
  const rnd = () => Math.random();
  const junkWord = () =>
    Array.from({ length: 6 + Math.floor(rnd() * 5) }, () =>
      String.fromCharCode(97 + Math.floor(rnd() * 26)),
    ).join('');
  const xff = (a, b) => `10.${a}.${b}.${1 + Math.floor(rnd() * 250)}`;
  const setup = {
    blocked: (req) => ({
      ...req,
      path: `/v1/search?q=${CITIES[n % CITIES.length]}`,
      headers: { ...req.headers, 'x-forwarded-for': BLOCKED[n++ % BLOCKED.length] },
    }),
    junk: (req) => ({
      ...req,
      path: `/v1/search?q=${junkWord()}`,
      headers: {
        ...req.headers,
        'x-forwarded-for': xff(100 + Math.floor(rnd() * 100), Math.floor(rnd() * 256)),
      },
    }),
    // forged and replay: captured (or forged) signed requests, over and over.
    forged: (req) => {
      const c = captured[n++ % captured.length];
      return { ...req, method: 'POST', path: c.path, headers: c.headers, body: c.body };
    },
  }[kind === 'replay' ? 'forged' : kind];
  const statuses = {};
  const runs = urls.map(
    (url) =>
      new Promise((resolve, reject) => {
        const inst = autocannon(
          {
            url,
            connections: Math.max(1, Math.round(connections / urls.length)),
            duration: seconds,
            requests: [{ setupRequest: setup }],
          },
          (err, res) => (err ? reject(err) : resolve(res)),
        );
        inst.on('response', (_c, status) => (statuses[status] = (statuses[status] ?? 0) + 1));
      }),
  );
  const results = await Promise.all(runs);
  parentPort.postMessage({
    kind,
    requests: Object.values(statuses).reduce((s, v) => s + v, 0),
    errors: results.reduce((s, r) => s + r.errors + r.timeouts, 0),
    statuses,
  });
}

/**
 * Slow streams, in a worker thread: `connections` signed streaming inference requests (the apps in
 * `signers`, one user each), each answer read one chunk every 500 ms; a refused one retries after 1 s.
 */
async function slowStreams({ urls, seconds, connections, streamApps }, signRequest) {
  const until = performance.now() + seconds * 1000;
  const statuses = {};
  let bytes = 0;
  const open = new Set();
  const one = (i) =>
    new Promise((resolve) => {
      const app = streamApps[i % streamApps.length];
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: `slow reader ${i}` }],
        max_tokens: 16,
      });
      const path = '/v1/chat/completions';
      const headers = {
        'content-type': 'application/json',
        'x-forwarded-for': `10.240.0.${1 + (i % 250)}`,
        ...signRequest({ appId: app.id, secret: app.secret, method: 'POST', url: path, body }),
      };
      const req = request(urls[i % urls.length] + path, { method: 'POST', headers }, (res) => {
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        res.on('data', (c) => {
          bytes += c.length;
          res.pause();
          setTimeout(() => res.resume(), 500);
        });
        res.on('close', () => resolve(res.statusCode === 200 ? 0 : 1000));
      });
      req.on('error', () => resolve(1000));
      open.add(req);
      req.end(body);
      setTimeout(() => req.destroy(), Math.max(0, until - performance.now()));
    });
  await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      while (performance.now() < until) await sleep(await one(i));
    }),
  );
  parentPort.postMessage({
    kind: 'slow streams',
    requests: Object.values(statuses).reduce((s, v) => s + v, 0),
    errors: 0,
    statuses,
    note: `${(bytes / 1024).toFixed(0)} KiB read`,
  });
}

/**
 * The well-behaved clients, in one worker thread of their own (attack-clients.mjs) for the whole scenario: each
 * message `{ seconds, tag }` runs one phase and answers with what it measured. The same thread, its connections
 * and its compiled code serve the warm-up and every phase, so no phase starts with a cold client (before, each
 * phase started a new thread: its first ~90 requests, all at once, paid the thread's start and new connections,
 * 5 % of the attack's normal window and more than its p99).
 */
async function clientsThread({ clientApps, ...base }) {
  const { signRequest } = await import(`${ROOT}dist/src/sdk/index.js`);
  const signers = clientApps.map(
    (a) => (method, url, body) => signRequest({ appId: a.id, secret: a.secret, method, url, body }),
  );
  parentPort.on('message', async (run) =>
    parentPort.postMessage(await wellBehaved({ ...base, ...run, signers })),
  );
  parentPort.postMessage({ ready: true });
}

/** An attacker's thread: loads what it needs, says ready, and starts on the first message (`go`). */
async function attackerThread(data) {
  // ATTACK_NICE: this thread's own niceness (Linux applies it per thread), so on a shared machine the load
  // generators, which in reality run on the attackers' own machines, do not take the instances' CPU first.
  if (NICE) setPriority(0, NICE);
  const sdk = data.kind === 'slow' ? await import(`${ROOT}dist/src/sdk/index.js`) : undefined;
  parentPort.once('message', () =>
    data.kind === 'slow' ? slowStreams(data, sdk.signRequest) : attacker(data),
  );
  parentPort.postMessage({ ready: true });
}

/** ATTACK_PREWARM: forged (another app), junk and replays (other addresses), 2 connections each, then stopped. */
async function prewarm(urls, forged, captured) {
  const replays = captured.map((c, i) => ({
    ...c,
    headers: { ...c.headers, 'x-forwarded-for': `10.227.0.${1 + (i % 250)}` },
  }));
  const base = { urls, seconds: PREWARM, connections: 2 };
  const ws = [
    inWorker({ ...base, kind: 'forged', captured: forged }),
    inWorker({ ...base, kind: 'junk' }),
    inWorker({ ...base, kind: 'replay', captured: replays }),
  ];
  await Promise.all(ws.map((w) => w.ready));
  await Promise.all(ws.map((w) => w.run()));
  for (const w of ws) await w.stop();
}

/**
 * A worker thread of this file: `ready` resolves once it has loaded (its start is not counted in any phase),
 * `run(msg)` posts a message and resolves with its next answer, `stop()` ends it.
 */
function inWorker(data) {
  const w = new Worker(new URL(import.meta.url), { workerData: data });
  const next = () =>
    new Promise((resolve, reject) => {
      const done = (f) => (v) => {
        w.off('message', ok);
        w.off('error', fail);
        f(v);
      };
      const ok = done(resolve);
      const fail = done(reject);
      w.on('message', ok);
      w.on('error', fail);
    });
  const ready = next();
  return {
    ready,
    run: (msg = {}) => {
      const answer = next();
      w.postMessage(msg);
      return answer;
    },
    stop: () => w.terminate(),
  };
}

/** Closed loop, no pacing: the mix from many apps and addresses; the service's capacity in 2xx/s. */
async function probe(apps, signers) {
  const until = performance.now() + PROBE_SECONDS * 1000;
  let ok = 0;
  let seq = 0;
  const statuses = {};
  await Promise.all(
    Array.from({ length: PROBE_CONNECTIONS }, async (_, c) => {
      for (let i = c; performance.now() < until; i++) {
        const client = i % MAX_CLIENTS;
        const n = seq++;
        const r = wellBehavedRequest(
          signers[client],
          client,
          i,
          `10.2.${(n >> 8) & 255}.${n & 255}`,
        );
        const { status } = await send(apps[c % apps.length].url, r);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status >= 200 && status < 300) ok++;
      }
    }),
  );
  return { capacity: ok / PROBE_SECONDS, statuses };
}

async function metricsOf(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const get = (name) =>
    Number(
      new RegExp(`^${name}\\{backend="inference"\\} ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? NaN,
    );
  return {
    inFlight: get('rampart_breaker_in_flight'),
    waiting: get('rampart_breaker_waiting'),
    limit: get('rampart_breaker_concurrency_limit'),
  };
}

/**
 * During the slow window, every 250 ms: the breakers' in-flight and waiting (both instances: peak and mean) and,
 * at the same moment, the calls in flight at the backend itself (the fake's own count: peak and mean), and the
 * largest gap between the two samples (breakers minus backend).
 */
async function watchBreakers(urls, until, fake) {
  const seen = { inFlight: 0, waiting: 0, limits: [], pairs: [] };
  while (performance.now() < until) {
    const [ms, at] = await Promise.all([
      Promise.all(urls.map((u) => metricsOf(u).catch(() => ({})))),
      stats(fake, false).catch(() => ({})),
    ]);
    const sum = (k) => ms.reduce((s, m) => s + (Number.isFinite(m[k]) ? m[k] : 0), 0);
    seen.inFlight = Math.max(seen.inFlight, sum('inFlight'));
    seen.waiting = Math.max(seen.waiting, sum('waiting'));
    if (ms.some((m) => Number.isFinite(m.limit))) seen.limits.push(sum('limit'));
    if (Number.isFinite(at.inFlight)) seen.pairs.push([sum('inFlight'), at.inFlight]);
    await sleep(250);
  }
  return seen;
}

const stats = async (fake, reset = true, loop = false) =>
  (await fetch(`${fake.control}/stats${reset ? '?reset=1' : ''}${loop ? '&loop=1' : ''}`)).json();
const control = (fake, what) => fetch(`${fake.control}/${what}`).then((r) => r.arrayBuffer());
/** Sets the backend's slow-down factor; resolves with the fake's answer (`at`: when, by its clock). */
const factor = (fake, x) => fetch(`${fake.control}/factor?x=${x}`).then((r) => r.json());

/** One configuration ("on" or "off"): two instances, the three phases; resolves with what they measured. */
async function scenario(label, configFile, ctx, dist = 'dist') {
  const { redis, fake, appsFile, signers, clientApps, paceMs, clients, forged, streamApps } = ctx;
  const { warmForged } = ctx;
  const traceDir = mkdtempSync(join(tmpdir(), 'rampart-attack-trace-'));
  const env = {
    REDIS_URL: redis.url,
    // A keyspace of its own per run: runs share the redis-server, and a run must not find the last one's leases,
    // spent budgets or bans (before stop 46 the second locks-on run of ATTACK_BASE refused every slow stream 429).
    RAMPART_ENV: `${label.startsWith('every') ? 'attack-off' : 'attack-on'}-${(ctx.runs = (ctx.runs ?? 0) + 1)}`,
    APPS_FILE: appsFile,
    ...(configFile ? { CONFIG_FILE: configFile } : {}),
    TRUSTED_PROXIES: '127.0.0.1/32',
    // Idle connections live 65 s (a load balancer's usual idle timeout; Node's default is 5 s): a well-behaved
    // client's own connection outlives the pause between two phases, so the attack does not start with every
    // client connecting again at once (attack-clients.mjs: new connections wait in the accept queue).
    HTTP_KEEP_ALIVE_TIMEOUT_MS: process.env.ATTACK_KEEP_ALIVE_MS ?? '65000',
    INFERENCE_UPSTREAM_URL: fake.url,
    ADMIN_TOKEN,
    LOG_LEVEL: 'error',
    // The shared machine's cores: a 1 s command timeout keeps a CPU stall from reading as a Redis outage.
    REDIS_COMMAND_TIMEOUT_MS: process.env.REDIS_COMMAND_TIMEOUT_MS ?? '1000',
  };
  // Each instance traces itself (attack-trace.mjs: the well-behaved requests' steps, its event loop and CPU).
  const entry = `${dist}/src/main.js`;
  const traced = (i) =>
    TRACE
      ? startApp(
          { ...env, ATTACK_TRACE_FILE: join(traceDir, `instance-${i}.jsonl`) },
          { entry, nodeArgs: ['--import', TRACE_MODULE, ...NODE_ARGS] },
        )
      : startApp(env, { entry, nodeArgs: NODE_ARGS });
  const instances = [await traced(0), await traced(1)];
  const urls = instances.map((a) => a.url);
  const clientThread = inWorker({ kind: 'clients', urls, clientApps, paceMs, count: clients });
  const clientsFor = (seconds, tag) => clientThread.run({ seconds, tag });
  try {
    await clientThread.ready;
    for (const app of instances) await waitReady(app.url);
    const captured = [];
    for (let i = 0; i < 50; i++) {
      const r = wellBehavedRequest(signers[i % CLIENTS], i % CLIENTS, 2 * i + 1);
      const res = await send(urls[0], r);
      // Replayed through the same trusted proxy, a captured request carries the replayer's own address.
      const headers = { ...r.headers, 'x-forwarded-for': `10.231.0.${1 + (i % 4)}` };
      if (res.status === 200) captured.push({ path: r.path, headers, body: r.body });
    }
    // Known-blocked repeaters: two addresses banned (admin API), two over their search quota (below).
    for (const subject of BLOCKED.slice(0, 2)) {
      const res = await fetch(`${urls[0]}/admin/bans`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          dimension: 'ip',
          subject,
          global: true,
          ttlSeconds: 3600,
          reason: 'bench',
        }),
      });
      if (res.status !== 201) console.warn(`${label}: ban ${res.status} ${await res.text()}`);
    }
    await clientsFor(3, 'warm'); // warm-up, not counted
    if (PREWARM > 0) await prewarm(urls, warmForged, captured);
    await sleep(2_000);
    const phases = [];
    for (const name of ['alone', 'attack', 'alone']) {
      await stats(fake, true, true);
      const attack = name === 'attack';
      if (attack) await overQuota(urls);
      // The attackers' threads start and load first; released together when the phase starts.
      const attackers = attack
        ? [
            inWorker({
              kind: 'forged',
              urls,
              seconds: SECONDS,
              connections: FORGED_CONNECTIONS,
              captured: forged,
            }),
            inWorker({ kind: 'junk', urls, seconds: SECONDS, connections: JUNK_CONNECTIONS }),
            inWorker({ kind: 'blocked', urls, seconds: SECONDS, connections: BLOCKED_CONNECTIONS }),
            inWorker({
              kind: 'replay',
              urls,
              seconds: SECONDS,
              connections: REPLAY_CONNECTIONS,
              captured,
            }),
            inWorker({
              kind: 'slow',
              urls,
              seconds: SECONDS,
              connections: SLOW_STREAMS,
              streamApps,
            }),
          ]
        : [];
      await Promise.all(attackers.map((a) => a.ready));
      const bad = Promise.all(attackers.map((a) => a.run()));
      const slow = attack ? slowBackend(fake, urls) : Promise.resolve(undefined);
      const start = wall();
      const good = await clientsFor(SECONDS, `${phases.length}`);
      const backend = await stats(fake);
      phases.push({ name, start, end: wall(), good, bad: await bad, slow: await slow, backend });
      for (const a of attackers) await a.stop();
      await sleep(2_000);
    }
    return { label, phases, instances: instances.map((_, i) => i) };
  } finally {
    await clientThread.stop();
    for (const app of instances) await app.stop();
    if (TRACE) ctxTraces(ctx, label, traceDir);
  }
}

/** The instances' traces of one run (attack-trace.mjs), by instance: request steps and per-second rows. */
function ctxTraces(ctx, label, dir) {
  const traces = [0, 1].map((i) => {
    const file = join(dir, `instance-${i}.jsonl`);
    const rows = existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
    return { steps: rows.filter((r) => r.id), seconds: rows.filter((r) => r.sec) };
  });
  (ctx.traces ??= {})[label] = traces;
}

/** Two repeater addresses spend their search burst (the shipped per-address rule: 60, then 10/s) at once. */
async function overQuota(urls) {
  const one = (xff, i) =>
    send(urls[i % 2], {
      method: 'GET',
      path: '/v1/search?q=oslo',
      headers: { 'x-forwarded-for': xff },
    });
  await Promise.all(
    BLOCKED.slice(2).flatMap((xff) => Array.from({ length: 80 }, (_, i) => one(xff, i))),
  );
}

/** The backend slows down SLOW_FACTOR× for SLOW_SECONDS, a fifth into the phase; what it and the breakers saw. */
async function slowBackend(fake, urls) {
  await sleep(SECONDS * 200);
  await stats(fake);
  // The window runs between the fake's own instants of the two changes: a call that reached it in between was
  // slowed (the main thread's clock before the reset left out calls that reached the fake while it was on its way).
  const from = (await factor(fake, SLOW_FACTOR)).at ?? wall();
  const watch = await watchBreakers(urls, performance.now() + SLOW_SECONDS * 1000, fake);
  const backend = await stats(fake, false);
  const asked = wall(); // the main thread's own instant (before stop 46 the window ended here)
  const to = (await factor(fake, 1)).at ?? wall();
  return { ...watch, backend, from, to, asked };
}

async function main() {
  const SDK = `${ROOT}dist/src/sdk/index.js`;
  if (!existsSync(SDK)) throw new Error('dist/ is missing: run `npm run build` first');
  const { signRequest } = await import(SDK);
  const secret = () => randomBytes(32).toString('base64url');
  const apps = Array.from({ length: MAX_CLIENTS }, (_, i) => ({
    id: `client-${i}`,
    tier: 'pro',
    secret: secret(),
  }));
  const streamApps = [0, 1].map((i) => ({ id: `slow-reader-${i}`, tier: 'pro', secret: secret() }));
  const target = { id: 'forged-target', tier: 'pro', secret: secret() };
  const warmTarget = { id: 'warm-target', tier: 'pro', secret: secret() };
  const all = [...apps, ...streamApps, target, warmTarget];
  const appsFile = writeConfig(
    {
      apps: all.map((a) => ({ id: a.id, tier: a.tier, secrets: [{ id: 'k1', secret: a.secret }] })),
    },
    'apps.json',
  );
  const signers = apps.map(
    (a) => (method, url, body) => signRequest({ appId: a.id, secret: a.secret, method, url, body }),
  );
  // The forged flood: a real app id, signed with a wrong secret (200 header sets, re-sent).
  const forgedOf = (app, net) =>
    Array.from({ length: 200 }, (_, i) => {
      const body = CHAT(-1, i);
      const path = '/v1/chat/completions';
      const headers = {
        'content-type': 'application/json',
        'x-forwarded-for': `10.${net}.${i >> 8}.${i & 255}`,
        ...signRequest({ appId: app.id, secret: secret(), method: 'POST', url: path, body }),
      };
      return { path, headers, body };
    });
  const forged = forgedOf(target, 230);
  const warmForged = forgedOf(warmTarget, 228); // ATTACK_PREWARM's
  const off = { mode: 'off' };
  const offConfig = writeConfig({
    policies: Object.fromEntries(
      POLICIES.map((p) => [p, { locks: Object.fromEntries(LOCKS.map((l) => [l, off])) }]),
    ),
  });
  const redis = await startRedis();
  const fake = await spawnFakeOpenAI({
    FAKE_CHUNK_DELAY_MS: '0',
    FAKE_LATENCY_MS: String(BACKEND_MS),
    FAKE_SLOTS: String(BACKEND_SLOTS),
  });
  await control(fake, 'endless?chars=1024'); // only the slow readers stream
  const load = [loadavg()[0]];
  try {
    let paceMs = Number(process.env.ATTACK_PACE_MS ?? 0);
    let capacity;
    let clients = CLIENTS;
    if (!paceMs) {
      const env = {
        REDIS_URL: redis.url,
        RAMPART_ENV: 'attackprobe',
        APPS_FILE: appsFile,
        TRUSTED_PROXIES: '127.0.0.1/32',
        INFERENCE_UPSTREAM_URL: fake.url,
        LOG_LEVEL: 'error',
        REDIS_COMMAND_TIMEOUT_MS: '1000',
      };
      const inst = [await startApp(env), await startApp(env)];
      try {
        for (const a of inst) await waitReady(a.url);
        await probe(inst, signers); // warm-up
        const p = await probe(inst, signers);
        capacity = p.capacity;
        console.log(
          `capacity probe (${PROBE_CONNECTIONS} closed loops, ${PROBE_SECONDS} s): ${JSON.stringify(p.statuses)}`,
        );
      } finally {
        for (const a of inst) await a.stop();
      }
      clients = Math.min(MAX_CLIENTS, Math.max(CLIENTS, Math.ceil(capacity / 2 / CLIENT_RATE)));
      paceMs = Math.round((clients * 1000) / (capacity / 2));
    }
    console.log(
      `bench:attack — 2 instances (express) on one redis-server; backend ${BACKEND_SLOTS} slots × ${BACKEND_MS} ms, ` +
        `${SLOW_FACTOR}× slower for ${SLOW_SECONDS} s under attack; ${clients} well-behaved clients, 1 request / ${paceMs} ms each ` +
        `(${Math.round((clients * 1000) / paceMs)}/s${capacity ? `, half the probed capacity ${Math.round(capacity)}/s` : ', ATTACK_PACE_MS'}); phases of ${SECONDS} s; ` +
        `load average (1 min) at the start ${load[0].toFixed(1)} on ${availableParallelism()} cores` +
        (NICE ? `; attackers' threads at nice ${NICE}` : ''),
    );
    const clientApps = apps.slice(0, clients).map(({ id, secret }) => ({ id, secret }));
    const ctx = { redis, fake, appsFile, signers, clientApps, paceMs, clients, forged, streamApps };
    ctx.warmForged = warmForged;
    // ATTACK_ADAPTIVE='{"minLimit":2}': the shipped policies with these adaptive limit options (false: a fixed bulkhead);
    // ATTACK_BREAKER='{"maxWaitMs":2000}': more options of that breaker (e.g. the fair wait queue).
    const adaptive = process.env.ATTACK_ADAPTIVE
      ? JSON.parse(process.env.ATTACK_ADAPTIVE)
      : undefined;
    const extra = process.env.ATTACK_BREAKER ? JSON.parse(process.env.ATTACK_BREAKER) : undefined;
    const breaker = { ...(adaptive !== undefined ? { adaptive } : {}), ...extra };
    const custom = adaptive !== undefined || extra !== undefined;
    const policies = custom ? { inference: { locks: { circuitBreaker: breaker } } } : {};
    const on = custom
      ? `locks on (shipped + inference breaker ${JSON.stringify(breaker)})`
      : 'locks on (shipped policies)';
    // ATTACK_LOAD='{"eventLoopDelay":{"soft":"50ms","hard":"500ms"},"hold":"10s"}': one more run, the same
    // policies with these rateLimit.load settings (own health on: shed first, docs/quotas.md#shed-first).
    const health = process.env.ATTACK_LOAD ? JSON.parse(process.env.ATTACK_LOAD) : undefined;
    const configs = [];
    if (process.env.ATTACK_ON !== '0')
      configs.push([on, custom ? writeConfig({ policies }) : undefined]);
    if (health)
      configs.push([
        `${on.replace(/\)$/, '')} + load ${JSON.stringify(health)})`,
        writeConfig({ policies, rateLimit: { load: health } }),
      ]);
    if (process.env.ATTACK_OFF !== '0') configs.push(['every lock off', offConfig]);
    // ATTACK_BASE=.dist-base: each locks-on configuration also runs on that build (the commit before a change,
    // built and copied there), right after the current build's run: the change's effect side by side.
    const base = process.env.ATTACK_BASE;
    const runs = [];
    for (const [label, file] of configs) {
      runs.push(await scenario(label, file, ctx));
      load.push(loadavg()[0]);
      if (!base || label === 'every lock off') continue;
      runs.push(await scenario(`${label} [${base}]`, file, ctx, base));
      load.push(loadavg()[0]);
    }
    report(runs, { SECONDS, SLOW_FACTOR, BACKEND_MS, load, table, traces: ctx.traces ?? {} });
    // ATTACK_DUMP=/tmp/attack.json: every run's phases (each well-behaved request) for a closer look.
    if (process.env.ATTACK_DUMP) writeFileSync(process.env.ATTACK_DUMP, JSON.stringify(runs));
  } finally {
    await fake.stop();
    await redis.stop();
  }
}

// Last: the helpers above are initialised before either entry point runs.
if (!isMainThread) {
  if (workerData.kind === 'clients') await clientsThread(workerData);
  else await attackerThread(workerData);
} else await main();

// bench:attack — the whole service under attack, in one run. Two built instances
// (express) share one private redis-server and one fake OpenAI-compatible upstream,
// with the shipped policies, TRUSTED_PROXIES=127.0.0.1 (each simulated client sends
// its own address in X-Forwarded-For). Phases, each BENCH_SECONDS (default 20) long:
//   alone   → 50 well-behaved clients only (signed search + signed inference, paced)
//   attack  → the same 50 clients, while at the same time
//             * a flooder: one address, search as fast as it can;
//             * a junk bot: random non-words in /v1/search, each from a random one of 6.4 million addresses;
//             * a replayer: re-sends captured signed inference requests, over and over;
//   alone   → the 50 clients only again (the baseline is both "alone" phases together).
// The attackers run in worker threads (their own event loops); the 50 clients run in the
// main thread, which does nothing else, so their latencies are not the attackers'.
// Prints: well-behaved success rate and p99 (alone vs attack), what each attacker got, the
// calls that reached each backend (breaker call counts summed over both instances) and what
// the shield answered itself, Redis CPU per phase (INFO cpu delta), and the machine's load
// average (the attackers share the machine's cores with the instances: on a shared 2-core
// machine they take CPU from the well-behaved clients, which a real attacker could not).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import { spawnFakeOpenAI } from './fake-openai-server.mjs';
import { ROOT, startApp, startRedis, table, writeConfig } from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CLIENTS = Number(process.env.ATTACK_CLIENTS ?? 50);
/** Each well-behaved client sends one request every PACE_MS (alternating search and inference). */
const PACE_MS = Number(process.env.ATTACK_PACE_MS ?? 250);
const FLOOD_CONNECTIONS = Number(process.env.ATTACK_FLOOD_CONNECTIONS ?? 8);
const JUNK_CONNECTIONS = Number(process.env.ATTACK_JUNK_CONNECTIONS ?? 8);
const REPLAY_CONNECTIONS = Number(process.env.ATTACK_REPLAY_CONNECTIONS ?? 4);
const CITIES = ['paris', 'london', 'berlin', 'tokyo', 'lagos', 'lima', 'oslo', 'cairo', 'delhi'];

/** One attacker, alone in a worker thread: autocannon against both instances until the duration ends. */
async function attacker({ kind, urls, seconds, connections, captured }) {
  let n = 0;
  const rnd = () => Math.random();
  const junkWord = () =>
    Array.from({ length: 6 + Math.floor(rnd() * 5) }, () =>
      String.fromCharCode(97 + Math.floor(rnd() * 26)),
    ).join('');
  const xff = (a, b) => `10.${a}.${b}.${1 + Math.floor(rnd() * 250)}`;
  const setup = {
    flood: (req) => ({
      ...req,
      path: `/v1/search?q=${CITIES[n++ % CITIES.length]}`,
      headers: { ...req.headers, 'x-forwarded-for': '10.250.0.1' },
    }),
    junk: (req) => ({
      ...req,
      path: `/v1/search?q=${junkWord()}`,
      headers: {
        ...req.headers,
        'x-forwarded-for': xff(100 + Math.floor(rnd() * 100), Math.floor(rnd() * 256)),
      },
    }),
    replay: (req) => {
      const c = captured[n++ % captured.length];
      return { ...req, method: 'POST', path: c.path, headers: c.headers, body: c.body };
    },
  }[kind];
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

function runAttacker(kind, urls, seconds, connections, captured = []) {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), {
      workerData: { kind, urls, seconds, connections, captured },
    });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

/** What a well-behaved client sends: signed, from its own address. */
function wellBehavedRequest(sign, client, i) {
  const headers = { 'x-forwarded-for': `10.1.${client >> 8}.${client & 255}` };
  if (i % 2 === 0) {
    const path = `/v1/search?q=${CITIES[(client + i) % CITIES.length]}&limit=5`;
    return { method: 'GET', path, headers: { ...headers, ...sign('GET', path) } };
  }
  const body = JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `client ${client} asks question ${i}` }],
    max_tokens: 16,
  });
  const path = '/v1/chat/completions';
  return {
    method: 'POST',
    path,
    body,
    headers: { ...headers, 'content-type': 'application/json', ...sign('POST', path, body) },
  };
}

/** The 50 clients for `seconds`: each paced, alternating search and inference, on instance client % 2. */
async function wellBehaved(apps, signers, seconds) {
  const until = performance.now() + seconds * 1000;
  const latencies = [];
  const statuses = {};
  const examples = {};
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    const base = apps[client % apps.length].url;
    // Spread the clients' starts over one pace interval.
    await new Promise((r) => setTimeout(r, (client * PACE_MS) / CLIENTS));
    for (let i = 0; performance.now() < until; i++) {
      const r = wellBehavedRequest(signers[client], client, i);
      const t0 = performance.now();
      let status = 0;
      try {
        const res = await fetch(base + r.path, {
          method: r.method,
          headers: r.headers,
          body: r.body,
          signal: AbortSignal.timeout(10_000),
        });
        const text = await res.text();
        status = res.status;
        if ((status < 200 || status >= 300) && !examples[status])
          examples[status] = `${r.method} ${r.path.split('?')[0]} → ${text.slice(0, 200)}`;
      } catch {
        status = 0;
      }
      const ms = performance.now() - t0;
      latencies.push(ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
      await new Promise((res) => setTimeout(res, Math.max(0, PACE_MS - ms)));
    }
  });
  await Promise.all(clients);
  return { latencies, statuses, examples };
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function metricSum(url, name, filter = () => true, by = 'backend') {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || !filter(line)) continue;
    const label = new RegExp(`${by}="([^"]+)"`).exec(line)?.[1] ?? '';
    out[label] = (out[label] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

/** Backend calls (breaker call counts) and shield forwards, summed over both instances. */
async function backendCounts(apps) {
  const total = {};
  for (const app of apps) {
    for (const [k, v] of Object.entries(
      await metricSum(app.url, 'rampart_breaker_call_duration_seconds_count'),
    ))
      total[`calls to backend ${k}`] = (total[`calls to backend ${k}`] ?? 0) + v;
    for (const [k, v] of Object.entries(
      await metricSum(
        app.url,
        'rampart_shield_interceptions_total',
        (l) => l.includes('policy="search"'),
        'reason',
      ),
    ))
      total[`shield answered (${k})`] = (total[`shield answered (${k})`] ?? 0) + v;
  }
  return total;
}

const redisCpu = (redis) => {
  const info = redis.cli('INFO', 'cpu');
  const get = (k) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return get('used_cpu_sys') + get('used_cpu_user');
};

async function ready(app) {
  for (let i = 0; i < 1200; i++) {
    const body = await (await fetch(`${app.url}/health/ready`)).json();
    const d = body.details ?? body.info ?? {};
    if (d.cacheShield?.status === 'up') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the cache shield did not become ready');
}

async function main() {
  const SDK = `${ROOT}dist/src/sdk/index.js`;
  if (!existsSync(SDK)) throw new Error('dist/ is missing: run `npm run build` first');
  const { signRequest } = await import(SDK);
  const apps = Array.from({ length: CLIENTS }, (_, i) => ({
    id: `client-${i}`,
    tier: 'pro',
    secrets: [{ id: 'k1', secret: randomBytes(32).toString('base64url') }],
  }));
  const signers = apps.map(
    (a) => (method, url, body) =>
      signRequest({ appId: a.id, secret: a.secrets[0].secret, method, url, body }),
  );
  const redis = await startRedis();
  const fake = await spawnFakeOpenAI({ FAKE_CHUNK_DELAY_MS: '0' });
  const env = {
    REDIS_URL: redis.url,
    RAMPART_ENV: 'bench',
    APPS_FILE: writeConfig({ apps }, 'apps.json'),
    TRUSTED_PROXIES: '127.0.0.1/32',
    INFERENCE_UPSTREAM_URL: fake.url,
    LOG_LEVEL: 'error',
    // The development machine's 2 cores are shared: a 1 s command timeout keeps a CPU stall from reading as a Redis outage.
    REDIS_COMMAND_TIMEOUT_MS: process.env.REDIS_COMMAND_TIMEOUT_MS ?? '1000',
  };
  const instances = [await startApp(env), await startApp(env)];
  const urls = instances.map((a) => a.url);
  try {
    for (const app of instances) await ready(app);
    console.log(
      `machine load average (1 min) at the start: ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
    );
    console.log(
      `bench:attack — 2 instances (express) on one redis-server, shipped policies; ${CLIENTS} well-behaved clients (1 request / ${PACE_MS} ms each); phases of ${SECONDS} s`,
    );
    // Captured traffic for the replayer: real signed inference requests, each sent once (accepted) first.
    const captured = [];
    for (let i = 0; i < 50; i++) {
      const r = wellBehavedRequest(signers[i % CLIENTS], i % CLIENTS, 2 * i + 1);
      const res = await fetch(urls[0] + r.path, {
        method: r.method,
        headers: r.headers,
        body: r.body,
      });
      await res.arrayBuffer();
      if (res.ok) captured.push({ path: r.path, headers: r.headers, body: r.body });
    }
    await wellBehaved(instances, signers, 3); // warm-up, not counted
    await new Promise((r) => setTimeout(r, 2_000)); // the well-behaved per-app buckets refill
    const phases = [];
    for (const name of ['alone', 'attack', 'alone']) {
      const calls0 = await backendCounts(instances);
      const cpu0 = redisCpu(redis);
      const attackers =
        name === 'attack'
          ? Promise.all([
              runAttacker('flood', urls, SECONDS, FLOOD_CONNECTIONS),
              runAttacker('junk', urls, SECONDS, JUNK_CONNECTIONS),
              runAttacker('replay', urls, SECONDS, REPLAY_CONNECTIONS, captured),
            ])
          : Promise.resolve([]);
      const good = await wellBehaved(instances, signers, SECONDS);
      const bad = await attackers;
      const cpu = redisCpu(redis) - cpu0;
      const calls1 = await backendCounts(instances);
      const calls = Object.fromEntries(
        Object.entries(calls1).map(([k, v]) => [k, v - (calls0[k] ?? 0)]),
      );
      phases.push({ name, good, bad, cpu, calls });
      await new Promise((r) => setTimeout(r, 2_000));
    }
    report(phases, captured.length);
  } finally {
    for (const app of instances) await app.stop();
    await fake.stop();
    await redis.stop();
  }
}

function report(phases, capturedCount) {
  const alone = phases.filter((p) => p.name === 'alone');
  const attack = phases.find((p) => p.name === 'attack');
  const aloneLat = alone.flatMap((p) => p.good.latencies);
  const ok = (s) => Object.entries(s).reduce((n, [k, v]) => n + (k >= 200 && k < 300 ? v : 0), 0);
  const counted = [...new Set(phases.flatMap((p) => Object.keys(p.calls)))];
  const rows = phases.map((p) => ({
    phase: p.name,
    'well-behaved requests': p.good.latencies.length,
    'success %': +((100 * ok(p.good.statuses)) / p.good.latencies.length).toFixed(3),
    'p50 ms': +quantile(p.good.latencies, 0.5).toFixed(1),
    'p99 ms': +quantile(p.good.latencies, 0.99).toFixed(1),
    statuses: JSON.stringify(p.good.statuses),
    'Redis CPU ms/s': +((p.cpu * 1000) / SECONDS).toFixed(1),
    ...Object.fromEntries(counted.map((k) => [k, p.calls[k] ?? 0])),
  }));
  table(rows);
  for (const p of phases)
    for (const [status, example] of Object.entries(p.good.examples))
      console.log(`well-behaved ${status} (${p.name}), e.g. ${example}`);
  table(
    attack.bad.map((b) => ({
      attacker: b.kind,
      requests: b.requests,
      'req/s': Math.round(b.requests / SECONDS),
      statuses: JSON.stringify(b.statuses),
      errors: b.errors,
    })),
  );
  const success = ok(attack.good.statuses) / attack.good.latencies.length;
  const p99Alone = quantile(aloneLat, 0.99);
  const p99Attack = quantile(attack.good.latencies, 0.99);
  const replay = attack.bad.find((b) => b.kind === 'replay');
  const junk = attack.bad.find((b) => b.kind === 'junk');
  const aloneCalls = alone.map((p) => p.calls['calls to backend search'] ?? 0);
  console.log(
    [
      `well-behaved under attack: ${(100 * success).toFixed(3)}% success (goal ≥ 99.9%: ${success >= 0.999 ? 'met' : 'MISSED'})`,
      `p50 ${quantile(attack.good.latencies, 0.5).toFixed(1)} ms under attack vs ${quantile(aloneLat, 0.5).toFixed(1)} ms alone; attackers sent ${attack.bad.reduce((n, b) => n + b.requests, 0)} requests (${Math.round(attack.bad.reduce((n, b) => n + b.requests, 0) / SECONDS)}/s)`,
      `p99 ${p99Attack.toFixed(1)} ms under attack vs ${p99Alone.toFixed(1)} ms alone = ${(p99Attack / p99Alone).toFixed(2)}× (goal ≤ 2×: ${p99Attack <= 2 * p99Alone ? 'met' : 'MISSED'})`,
      `replays of ${capturedCount} captured requests accepted: ${ok(replay.statuses)} of ${replay.requests}`,
      `search backend calls: ${attack.calls['calls to backend search'] ?? 0} under attack (junk bot sent ${junk.requests}) vs ${aloneCalls.join(' / ')} alone`,
      `Redis CPU: ${((attack.cpu * 1000) / SECONDS).toFixed(1)} ms/s under attack vs ${alone.map((p) => ((p.cpu * 1000) / SECONDS).toFixed(1)).join(' / ')} ms/s alone`,
      `machine load average (1 min) at the end: ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
    ].join('\n'),
  );
}

// Last: the helpers above are initialised before either entry point runs.
if (!isMainThread) await attacker(workerData);
else await main();

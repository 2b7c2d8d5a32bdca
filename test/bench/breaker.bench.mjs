// bench:breaker — lock 4 under load (POST /v1/inference, autocannon) against
// the fake OpenAI upstream (test/support/fake-openai.ts, run in a child
// process of its own and switched over IPC), on express and fastify:
//   1. the upstream starts failing (500) under load: upstream calls before the
//      breaker opens, then calls that still reach the dead upstream per reset
//      period (goal: only the probes) — next to the same load with the breaker off;
//   2. p99 of the 503 path (circuit forced open) next to the 200 path and the
//      502 path (breaker closed, upstream failing), measured in one run;
//   3. the upstream recovers under load: time until the first successful probe,
//      the ramp start and full traffic (breaker closed).
import { fork } from 'node:child_process';
import { cannon, startApp, summary, table, writeConfig, CONNECTIONS } from './lib.mjs';
import { importFakeOpenAI } from './fake-openai-server.mjs';

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const FAIL_MS = Number(process.env.BREAKER_FAIL_SECONDS ?? 12) * 1000;
const P99_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BREAKER = {
  mode: 'enforce',
  backend: 'inference',
  timeoutMs: 2_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 20,
  rollingCountTimeoutMs: 10_000,
  rollingCountBuckets: 10,
  resetTimeoutMs: 2_000,
  resetJitter: 0.2,
  capacity: 1_000,
  halfOpenProbes: 3,
  rampPercents: [10, 50],
  rampMs: 4_000,
};
const OFF = { mode: 'off' };
const config = (breaker) =>
  writeConfig({
    policies: {
      inference: {
        locks: { signature: OFF, rateLimit: OFF, cacheShield: OFF, circuitBreaker: breaker },
      },
    },
  });
const body = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hello' }],
  max_tokens: 8,
});
const post = (url, extra = {}) => ({
  url: `${url}/v1/inference`,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body,
  ...extra,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startFake() {
  const child = fork(new URL(import.meta.url).pathname, ['--fake'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await new Promise((resolve) => child.once('message', resolve));
  let seq = 0;
  return {
    url,
    setStatus: (value) => child.send({ cmd: 'status', value: value ?? null }),
    counts: () =>
      new Promise((resolve) => {
        const id = ++seq;
        const on = (m) => m.id === id && (child.off('message', on), resolve(m));
        child.on('message', on);
        child.send({ cmd: 'counts', id });
      }),
    stop: () =>
      new Promise((resolve) => (child.once('exit', resolve), child.send({ cmd: 'stop' }))),
  };
}

/** The breaker's phase from /metrics (one-hot gauge). */
async function phase(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /rampart_breaker_state\{backend="inference",state="(\w+)"\} 1\b/.exec(text);
  return m ? m[1] : 'unknown';
}

async function breakerStatus(url) {
  const res = await fetch(`${url}/admin/breakers`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return (await res.json()).breakers.find((b) => b.name === 'inference');
}

/** Polls until `ok(phase)`; resolves with the time it was first seen. */
async function until(url, ok, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (ok(await phase(url))) return Date.now();
    await sleep(10);
  }
  throw new Error('breaker phase not reached');
}

/** Upstream failing under load: upstream calls before opening and per reset period after it. */
async function failingUpstream(app, fake, withBreaker) {
  await cannon({ ...post(app.url), duration: 2 });
  fake.setStatus(500);
  const start = await fake.counts();
  const load = cannon({ ...post(app.url), duration: FAIL_MS / 1000 });
  const t0 = Date.now();
  let openAt;
  let atOpen;
  if (withBreaker) {
    openAt = await until(app.url, (p) => p === 'open', FAIL_MS);
    atOpen = await fake.counts();
  }
  const res = await load;
  const end = await fake.counts();
  const status = withBreaker ? await breakerStatus(app.url) : undefined;
  fake.setStatus(undefined);
  const openMs = withBreaker ? Date.now() - openAt : Date.now() - t0;
  const periods = openMs / BREAKER.resetTimeoutMs;
  const afterOpen = end.requests - (withBreaker ? atOpen.requests : start.requests);
  return {
    res,
    row: {
      breaker: withBreaker ? 'enforce' : 'off',
      'upstream calls before open': withBreaker ? atOpen.requests - start.requests : '-',
      'ms to open': withBreaker ? openAt - t0 : '-',
      'upstream calls after open': afterOpen,
      'reset periods': +periods.toFixed(2),
      'upstream calls / reset period': +(afterOpen / periods).toFixed(2),
      'probes sent': status ? status.stats.totalProbes : '-',
      'answers/s': Math.round(res.requests.average),
      non2xx: res.non2xx,
    },
  };
}

/** Upstream recovers under load: ms to the first good probe (ramp start) and to full traffic. */
async function recovery(app, fake) {
  await fetch(`${app.url}/admin/breakers/inference/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  fake.setStatus(500);
  const load = cannon({ ...post(app.url), duration: 30 });
  await until(app.url, (p) => p === 'open');
  await sleep(BREAKER.resetTimeoutMs / 2);
  fake.setStatus(undefined);
  const t = Date.now();
  const ramp = await until(app.url, (p) => p === 'recovering' || p === 'closed');
  const full = await until(app.url, (p) => p === 'closed');
  const res = await load;
  return {
    'ms to ramp start': ramp - t,
    'ms to full traffic': full - t,
    'of which ramp (rampMs)': BREAKER.rampMs,
    'answers/s': Math.round(res.requests.average),
  };
}

/** p99 of the 503 path next to the 200 and 502 paths, same app, same load. */
async function latencies(app, fake) {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const run = async (label, opts = post(app.url)) => ({
    path: label,
    ...summary(await cannon({ ...opts, duration: P99_SECONDS })),
  });
  await fetch(`${app.url}/admin/breakers/inference/reset`, { method: 'POST', headers: auth });
  const bare = await run('GET /v1/time (no lock, no backend: framework floor)', {
    url: `${app.url}/v1/time`,
  });
  const ok = await run('200 (upstream healthy)');
  await fetch(`${app.url}/admin/breakers/inference/force`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify({ state: 'closed' }),
  });
  fake.setStatus(500);
  const failed = await run('502 (breaker closed, upstream 500)');
  await fetch(`${app.url}/admin/breakers/inference/force`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify({ state: 'open' }),
  });
  const refused = await run('503 circuit_open (open)');
  fake.setStatus(undefined);
  await fetch(`${app.url}/admin/breakers/inference/force`, { method: 'DELETE', headers: auth });
  for (const r of [bare, ok, failed, refused]) r['p99 ÷ 200 path'] = +(r.p99 / ok.p99).toFixed(3);
  return [bare, ok, failed, refused];
}

async function main() {
  console.log(
    `bench:breaker — autocannon ${CONNECTIONS} connections; upstream failing for ${FAIL_MS / 1000} s; reset ${BREAKER.resetTimeoutMs} ms ±20 %, ${BREAKER.halfOpenProbes} probes, ramp ${BREAKER.rampPercents.join('→')}→100 % over ${BREAKER.rampMs} ms`,
  );
  const fake = await startFake();
  const failing = [];
  const recoveries = [];
  const paths = [];
  try {
    const off = await startApp({ CONFIG_FILE: config(OFF), INFERENCE_UPSTREAM_URL: fake.url });
    try {
      failing.push({ adapter: 'express', ...(await failingUpstream(off, fake, false)).row });
    } finally {
      await off.stop();
    }
    for (const adapter of ['express', 'fastify']) {
      const app = await startApp({
        HTTP_ADAPTER: adapter,
        CONFIG_FILE: config(BREAKER),
        INFERENCE_UPSTREAM_URL: fake.url,
        ADMIN_TOKEN,
      });
      try {
        failing.push({ adapter, ...(await failingUpstream(app, fake, true)).row });
        recoveries.push({ adapter, ...(await recovery(app, fake)) });
        for (const row of await latencies(app, fake)) paths.push({ adapter, ...row });
      } finally {
        await app.stop();
      }
    }
  } finally {
    await fake.stop();
  }
  console.log(
    '\n1. Upstream failing under load (goal after opening: only the probes reach it, at most one per reset period)',
  );
  table(failing);
  console.log('\n2. Latency by answer path');
  table(paths);
  console.log('\n3. Upstream recovered under load');
  table(recoveries);
}

if (process.argv[2] === '--fake') {
  const { startFakeOpenAI } = await importFakeOpenAI();
  const fake = await startFakeOpenAI();
  fake.setChunkDelay(0);
  process.on('message', (m) => {
    if (m.cmd === 'status') fake.setStatus(m.value ?? undefined);
    if (m.cmd === 'counts')
      process.send({
        id: m.id,
        requests: fake.requests,
        inFlight: fake.inFlight,
        aborted: fake.aborted,
      });
    if (m.cmd === 'stop') void fake.close().then(() => process.exit(0));
  });
  process.send({ url: fake.url });
} else {
  await main();
}

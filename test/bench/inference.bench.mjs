// bench:inference — POST /v1/inference on express and fastify, in one run:
// the local demo model (JSON and streamed) and the upstream proxy (JSON and
// streamed), next to the same fake upstream called directly and a bare route
// of the same app. Prints req/s, p50/p99, CPU time per request of the process
// that answered (µs; for the proxy rows Rampart's own, without the upstream's),
// and the proxy's throughput as a share of the upstream's.
import { DEFAULT_POLICIES } from '../../dist/src/chain/default-policies.js';
import {
  cannon,
  cpuMicros,
  startApp,
  summary,
  table,
  writeConfig,
  SECONDS,
  CONNECTIONS,
} from './lib.mjs';
import { spawnFakeOpenAI } from './fake-openai-server.mjs';

// Every lock of every shipped policy off: this measures the API and its backends.
const LOCKS = ['signature', 'rateLimit', 'cacheShield', 'circuitBreaker'];
const allOff = { locks: Object.fromEntries(LOCKS.map((l) => [l, { mode: 'off' }])) };
const configFile = writeConfig({
  policies: Object.fromEntries(Object.keys(DEFAULT_POLICIES).map((name) => [name, allOff])),
});

const MESSAGE =
  'I loved the concert in Berlin on 14 June 2025, although the $180 tickets were far too expensive. Mail me at fan@example.com #music';
const body = (extra) =>
  JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: MESSAGE },
    ],
    max_tokens: 64,
    ...extra,
  });
const post = (url, extra = {}) => ({
  url,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: body(extra),
});

/** Warm-up, then a measured run with the CPU time the answering process spent on it. */
async function run(pid, opts) {
  await cannon({ ...opts, duration: Math.min(3, SECONDS) });
  const cpu0 = cpuMicros(pid);
  const res = await cannon(opts);
  return {
    ...summary(res),
    'cpu µs/req': Math.round((cpuMicros(pid) - cpu0) / Math.max(1, res.requests.total)),
  };
}

console.log(
  `bench:inference — autocannon ${CONNECTIONS} connections, ${SECONDS} s per run after a warm-up; no Redis; every lock off`,
);
const fake = await spawnFakeOpenAI({ FAKE_CHUNK_DELAY_MS: '0' });
const rows = [];
try {
  const direct = await run(fake.pid, post(`${fake.url}/chat/completions`));
  const directStream = await run(fake.pid, post(`${fake.url}/chat/completions`, { stream: true }));
  rows.push({
    case: 'fake upstream, called directly',
    adapter: '-',
    mode: 'json',
    ...direct,
    '÷ direct': 1,
  });
  rows.push({
    case: 'fake upstream, called directly',
    adapter: '-',
    mode: 'stream',
    ...directStream,
    '÷ direct': 1,
  });
  for (const adapter of ['express', 'fastify']) {
    const local = await startApp({ HTTP_ADAPTER: adapter, CONFIG_FILE: configFile });
    const proxy = await startApp({
      HTTP_ADAPTER: adapter,
      CONFIG_FILE: configFile,
      INFERENCE_UPSTREAM_URL: fake.url,
    });
    try {
      const check = await cannon({
        ...post(`${local.url}/v1/inference`),
        amount: 1,
        connections: 1,
      });
      if (check.non2xx) throw new Error(`local model answered non-2xx on ${adapter}`);
      rows.push({
        case: 'bare GET /v1/time (reference)',
        adapter,
        mode: 'json',
        ...(await run(local.pid, { url: `${local.url}/v1/time` })),
        '÷ direct': '',
      });
      rows.push({
        case: 'local demo model',
        adapter,
        mode: 'json',
        ...(await run(local.pid, post(`${local.url}/v1/inference`))),
        '÷ direct': '',
      });
      rows.push({
        case: 'local demo model',
        adapter,
        mode: 'stream',
        ...(await run(local.pid, post(`${local.url}/v1/inference`, { stream: true }))),
        '÷ direct': '',
      });
      const pj = await run(proxy.pid, post(`${proxy.url}/v1/inference`));
      const ps = await run(proxy.pid, post(`${proxy.url}/v1/inference`, { stream: true }));
      rows.push({
        case: 'upstream proxy → fake',
        adapter,
        mode: 'json',
        ...pj,
        '÷ direct': +(pj.reqPerSec / direct.reqPerSec).toFixed(3),
      });
      rows.push({
        case: 'upstream proxy → fake',
        adapter,
        mode: 'stream',
        ...ps,
        '÷ direct': +(ps.reqPerSec / directStream.reqPerSec).toFixed(3),
      });
    } finally {
      await local.stop();
      await proxy.stop();
    }
  }
} finally {
  await fake.stop();
}
table(rows);

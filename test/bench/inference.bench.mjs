// bench:inference — POST /v1/inference on express and fastify, in one run:
// the local demo model (JSON and streamed) and the upstream proxy (JSON and
// streamed), next to the same fake upstream called directly and a bare route
// of the same app. Prints req/s, p50/p99, CPU time per request of the process
// that answered (µs; for the proxy rows Rampart's own, without the upstream's),
// and the proxy's throughput as a share of the upstream's. Then (issue 31) /v1/chat/completions through the upstream
// proxy with token rules off and on, side by side in one run (same load, same requests), with the Redis calls per
// request (MONITOR). BENCH_ONLY=tokens runs only those rows (and the direct ones they are compared with).
import { SHIPPED_POLICIES as DEFAULT_POLICIES } from '../../dist/src/app.policies.js';
import {
  cannon,
  cpuMicros,
  luaScriptNames,
  startApp,
  startRedis,
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

/**
 * Token rules off / on (issue 31): the inference policy with only its rate-limit lock on (private redis-server), a
 * request rule (global, raised so nothing is refused) without / with a tokens rule (global, total tokens per day,
 * raised likewise): what reserving at admission and settling to the answer's usage add to a chat completion.
 */
const HUGE = { capacity: 1_000_000_000, rate: '1000000/s' };
const rlConfig = (tokens) =>
  writeConfig({
    policies: {
      ...Object.fromEntries(Object.keys(DEFAULT_POLICIES).map((name) => [name, allOff])),
      inference: {
        locks: {
          ...allOff.locks,
          rateLimit: {
            mode: 'enforce',
            rules: [
              { name: 'bench-global', dimension: 'global', ...HUGE },
              ...(tokens
                ? [
                    {
                      name: 'bench-tokens',
                      dimension: 'global',
                      algorithm: 'tokens',
                      capacity: 1_000_000_000,
                      window: '1d',
                    },
                  ]
                : []),
            ],
          },
        },
      },
    },
  });
const tokenConfigs = { off: rlConfig(false), on: rlConfig(true) };
/** Requests per MONITOR count (after the measured runs). */
const RT_REQUESTS = 400;
/** BENCH_ONLY=tokens: only the direct rows and the token rules off/on rows. */
const ONLY_TOKENS = process.env.BENCH_ONLY === 'tokens';

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
  `bench:inference — autocannon ${CONNECTIONS} connections, ${SECONDS} s per run after a warm-up; every lock off (the token rows: see below)`,
);
const fake = await spawnFakeOpenAI({ FAKE_CHUNK_DELAY_MS: '0' });
const rows = [];
const tokenRows = [];
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
  for (const adapter of ONLY_TOKENS ? [] : ['express', 'fastify']) {
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
  tokenRows.push(...(await tokenRules(direct, directStream)));
} finally {
  await fake.stop();
}
table(rows);
console.log(
  `token rules off / on — inference policy, rate-limit lock only, private redis-server; Redis calls/req: MONITOR over ${RT_REQUESTS} requests (10 connections)`,
);
table(tokenRows);

/** The off/on rows of both adapters: the same requests to two instances, interleaved, one private redis-server. */
async function tokenRules(direct, directStream) {
  const redis = await startRedis();
  const names = await luaScriptNames();
  const out = [];
  try {
    for (const adapter of ['express', 'fastify']) {
      const apps = {};
      try {
        for (const kind of ['off', 'on'])
          apps[kind] = await startApp({
            HTTP_ADAPTER: adapter,
            CONFIG_FILE: tokenConfigs[kind],
            INFERENCE_UPSTREAM_URL: fake.url,
            REDIS_URL: redis.url,
            RAMPART_ENV: `benchtok${kind}${adapter}`,
          });
        for (const mode of ['json', 'stream']) {
          const extra = mode === 'stream' ? { stream: true } : {};
          const got = {};
          for (const kind of ['off', 'on']) {
            const a = apps[kind];
            const r = await run(a.pid, post(`${a.url}/v1/chat/completions`, extra));
            const rt = await redis.roundTrips(
              () =>
                cannon({
                  ...post(`${a.url}/v1/chat/completions`, extra),
                  amount: RT_REQUESTS,
                  connections: 10,
                }),
              names,
            );
            const scripts = Object.entries(rt.byCommand)
              .filter(([c]) => c.startsWith('evalsha '))
              .map(([c, n]) => `${c.slice(8)} ${(n / RT_REQUESTS).toFixed(2)}`)
              .join(', ');
            got[kind] = r;
            out.push({
              adapter,
              mode,
              'token rules': kind,
              ...r,
              'Redis calls/req': +(rt.total / RT_REQUESTS).toFixed(2),
              scripts,
              '÷ direct': +(
                r.reqPerSec / (mode === 'json' ? direct : directStream).reqPerSec
              ).toFixed(3),
              'on ÷ off': kind === 'on' ? +(r.reqPerSec / got.off.reqPerSec).toFixed(3) : '',
            });
          }
        }
      } finally {
        await apps.off?.stop();
        await apps.on?.stop();
      }
    }
  } finally {
    await redis.stop();
  }
  return out;
}

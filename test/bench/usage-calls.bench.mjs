// bench:usage-calls — Redis round trips per inference call WITHOUT a tokens rule (issue 31): the inference policy
// with only its rate-limit lock on (one global request rule), a private redis-server, the fake upstream; calls made
// one at a time (each answer ends alone: nothing to batch with), then USAGE_CALLS_CONCURRENCY (default 10) at a
// time. Round trips counted with MONITOR, by script. The usage of every call must still reach its usage buckets.
// Run `npm run build` first (imports dist/).
import { SHIPPED_POLICIES } from '../../dist/src/app.policies.js';
import { luaScriptNames, startApp, startRedis, writeConfig } from './lib.mjs';
import { spawnFakeOpenAI } from './fake-openai-server.mjs';

const N = Number(process.env.USAGE_CALLS ?? 200);
const CONC = Number(process.env.USAGE_CALLS_CONCURRENCY ?? 10);
const off = { mode: 'off' };
const allOff = { locks: { signature: off, rateLimit: off, cacheShield: off, circuitBreaker: off } };
const config = writeConfig({
  policies: {
    ...Object.fromEntries(Object.keys(SHIPPED_POLICIES).map((n) => [n, allOff])),
    inference: {
      locks: {
        ...allOff.locks,
        rateLimit: {
          mode: 'enforce',
          rules: [{ name: 'g', dimension: 'global', capacity: 1_000_000_000, rate: '1000000/s' }],
        },
      },
    },
  },
});
const fake = await spawnFakeOpenAI();
const redis = await startRedis();
const app = await startApp({
  CONFIG_FILE: config,
  INFERENCE_UPSTREAM_URL: fake.url,
  REDIS_URL: redis.url,
  RAMPART_ENV: 'usagecalls',
});
const names = await luaScriptNames();
const call = async () => {
  const r = await fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  return (await r.json()).usage?.total_tokens ?? 0;
};
const rows = [];
let tokens = 0;
try {
  for (let i = 0; i < 5; i++) {
    const t = await call(); // warm-up (script loads)
    tokens += t;
  }
  for (const conc of [1, CONC]) {
    const rt = await redis.roundTrips(async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: conc }, async () => {
          while (next++ < N) {
            const t = await call(); // not `tokens += await …`: that reads `tokens` before the await
            tokens += t;
          }
        }),
      );
    }, names);
    const scripts = Object.entries(rt.byCommand)
      .filter(([c]) => c.startsWith('evalsha '))
      .map(([c, n]) => `${c.slice(8)} ${(n / N).toFixed(2)}`)
      .join(', ');
    rows.push({
      concurrency: conc,
      calls: N,
      'Redis calls/req': +(rt.total / N).toFixed(2),
      scripts,
    });
  }
  await new Promise((r) => setTimeout(r, 1500)); // a usage write still buffered
  // The day buckets of the usage hashes (lua/ratelimit_settle.lua: HINCRBY <model>:p|c), read off the private Redis.
  let recorded = 0;
  for (const key of redis.cli('KEYS', '*:usage:day:*').split('\n').filter(Boolean)) {
    const flat = redis.cli('HGETALL', key).split('\n').filter(Boolean);
    if (process.env.USAGE_CALLS_DEBUG === '1') console.log(key, flat);
    for (let i = 0; i + 1 < flat.length; i += 2)
      if (/:(p|c)$/.test(flat[i])) recorded += Number(flat[i + 1]);
  }
  console.log(
    `load average ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.table(rows);
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  const failed = metrics
    .split('\n')
    .filter((l) => l.startsWith('rampart_ratelimit_store_errors_total') && l.includes('settle'))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
  console.log(
    `tokens answered ${tokens}, recorded in the usage buckets (day) ${recorded}, failed settlements ${failed}`,
  );
} finally {
  await app.stop();
  await redis.stop();
  await fake.stop();
}

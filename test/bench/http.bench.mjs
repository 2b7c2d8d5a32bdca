// bench:http — a bare route vs a @Protect route with every lock off, on
// express and on fastify, in one run. Prints req/s, p50/p99 and the ratios.
import { measure, startApp, summary, table, writeConfig, SECONDS, CONNECTIONS } from './lib.mjs';

const LOCKS = ['signature', 'rateLimit', 'cacheShield', 'circuitBreaker'];
const allOff = Object.fromEntries(LOCKS.map((l) => [l, { mode: 'off' }]));
const configFile = writeConfig({ policies: { whoami: { locks: allOff } } });

console.log(
  `bench:http — autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, after a warm-up; no Redis`,
);
const rows = [];
for (const adapter of ['express', 'fastify']) {
  const app = await startApp({ HTTP_ADAPTER: adapter, CONFIG_FILE: configFile });
  try {
    const bare = summary(await measure({ url: `${app.url}/v1/time` }));
    const prot = summary(await measure({ url: `${app.url}/v1/whoami` }));
    rows.push({ adapter, route: 'bare GET /v1/time', ...bare, ratio: 1 });
    rows.push({
      adapter,
      route: '@Protect GET /v1/whoami, all locks off',
      ...prot,
      ratio: +(prot.reqPerSec / bare.reqPerSec).toFixed(3),
    });
  } finally {
    await app.stop();
  }
}
const expressBare = rows[0].reqPerSec;
for (const r of rows) r['÷ express bare'] = +(r.reqPerSec / expressBare).toFixed(2);
table(rows);

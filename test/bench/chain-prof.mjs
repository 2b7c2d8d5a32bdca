// One row of bench:chain on one adapter, with a CPU profile of the measured run only (chain-prof-hook.mjs)
// and the app's Node CPU µs per request over that run (/proc). Never shipped.
//   npm run build && BENCH_PIN=1 PROF_ROW='signed GET' PROF_ADAPTER=fastify PROF_OUT=/tmp/whoami.cpuprofile \
//     node test/bench/chain-prof.mjs        (PROF_SECONDS, default 8; without PROF_OUT: no profile)
// Open the .cpuprofile in Chrome DevTools (Performance) or read it with any cpuprofile tool. Compare
// two rows' profiles by their shares, each scaled to its row's µs per request: the sampler's wall
// time is inflated on a loaded machine, the shares much less.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { cannon, cpuMicros, startApp, startRedis, waitReady } from './lib.mjs';
import { VARIANTS, appsFile, onConfig, presign } from './chain-cases.mjs';

const adapter = process.env.PROF_ADAPTER ?? 'fastify';
const row = process.env.PROF_ROW ?? 'signed GET';
const seconds = Number(process.env.PROF_SECONDS ?? 8);
const out = process.env.PROF_OUT;
const found = VARIANTS.find(([n]) => n.includes(row));
if (!found || found[1] !== 'on') throw new Error(`no row of app "on" matches ${row}`);
const [name, , requests] = found;
const redis = await startRedis();
const hook = new URL('./chain-prof-hook.mjs', import.meta.url).pathname;
const app = await startApp(
  {
    HTTP_ADAPTER: adapter,
    APPS_FILE: appsFile,
    CONFIG_FILE: onConfig,
    SEARCH_SQLITE_PATH: process.env.BENCH_SQLITE ?? join(tmpdir(), 'rampart-bench-prof.sqlite'),
    REDIS_COMMAND_TIMEOUT_MS: '1000',
    REDIS_URL: redis.url,
    RAMPART_ENV: `prof${adapter}`,
    ...(out ? { PROF_OUT: out } : {}),
  },
  { entry: 'test/bench/chain-app.mjs', nodeArgs: out ? ['--import', hook] : [] },
);
try {
  await waitReady(app.url);
  presign(requests, 20_000 * 2);
  await cannon({ url: app.url, requests, duration: 2 });
  presign(requests, 20_000 * seconds);
  if (out) process.kill(app.pid, 'SIGUSR2');
  const cpu0 = cpuMicros(app.pid);
  const res = await cannon({ url: app.url, requests, duration: seconds });
  const cpu = cpuMicros(app.pid) - cpu0;
  if (out) {
    process.kill(app.pid, 'SIGUSR2');
    await new Promise((r) => setTimeout(r, 1500)); // the profile is written
  }
  const n = Math.max(1, res.requests.total);
  console.log(
    `${adapter} ${name}: ${Math.round(res.requests.average)} req/s, ${n} requests, Node CPU ${(cpu / n).toFixed(1)} µs/req${out ? `; profile: ${out}` : ''}`,
  );
} finally {
  await app.stop();
  await redis.stop();
}

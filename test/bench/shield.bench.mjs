// bench: shield — (1) the Bloom filter: ours vs bloom-filters@3 (npm), each in its own process,
// n = 1e6 keys, p = 0.001: build time, lookups/s, bytes vs m/8, measured false-positive rate.
// (2) a junk flood: 100k random queries and 100k random ids that are NOT in the corpus, against the
// shielded routes (memory store; Redis store) and the same routes unshielded, in one run: the fraction
// of requests that reached the backend and req/s. Run `npm run build` first (the app runs from dist/).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { ROOT, CONNECTIONS, startApp, startRedis, table, writeConfig } from './lib.mjs';

const N = Number(process.env.BENCH_BLOOM_N ?? 1_000_000);
const P = 0.001;
const FLOOD = Number(process.env.BENCH_FLOOD ?? 100_000);
/** Interleaved rounds per route: each variant gets a fresh slice of the junk keys per round; the median round is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

if (process.argv[2] === '--bloom') {
  process.stdout.write(JSON.stringify(await bloomRun(process.argv[3])) + '\n');
  process.exit(0);
}

/** One implementation, alone in this process: build N keys, then time lookups and count false positives. */
async function bloomRun(impl) {
  const keys = Array.from({ length: N }, (_, i) => `term:${i}`);
  const absent = Array.from({ length: 100_000 }, (_, i) => `absent:${i}:${(i * 2654435761) >>> 0}`);
  globalThis.gc?.();
  const mem = () => {
    const u = process.memoryUsage();
    return u.heapUsed + u.arrayBuffers;
  };
  const mem0 = mem();
  const t0 = performance.now();
  let f, bytes, m, k;
  if (impl === 'ours') {
    const { BloomFilter } = await import(
      `${ROOT}dist/src/locks/cache-shield/bloom/filter/bloom-filter.js`
    );
    f = BloomFilter.sized(N, P);
    for (const key of keys) f.add(key);
    [bytes, m, k] = [f.bits.length, f.m, f.k];
  } else {
    const { BloomFilter } = createRequire(import.meta.url)('bloom-filters');
    f = BloomFilter.create(N, P);
    for (const key of keys) f.add(key);
    [bytes, m, k] = [f._filter.array.length, f._size, f._nbHashes];
  }
  const buildMs = performance.now() - t0;
  globalThis.gc?.();
  const retainedMb = (mem() - mem0) / 2 ** 20;
  const probe = keys.slice(0, 100_000);
  const t1 = performance.now();
  let fn = 0;
  for (const key of probe) if (!f.has(key)) fn++;
  const t2 = performance.now();
  let fp = 0;
  for (const key of absent) if (f.has(key)) fp++;
  const t3 = performance.now();
  return {
    impl,
    m,
    k,
    bytes,
    'm/8': Math.ceil(m / 8),
    buildMs: Math.round(buildMs),
    presentPerSec: Math.round(probe.length / ((t2 - t1) / 1000)),
    absentPerSec: Math.round(absent.length / ((t3 - t2) / 1000)),
    falseNegatives: fn,
    measuredFp: fp / absent.length,
    'retained MB (heap + buffers)': +retainedMb.toFixed(2),
  };
}

function bloomInChild(impl) {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', new URL(import.meta.url).pathname, '--bloom', impl],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (r.status !== 0) throw new Error(`bloom run ${impl} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** Keys certainly absent from the corpus the app serves (checked against its SQLite index). */
function junk() {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(`${ROOT}data/search.sqlite`, { readonly: true });
  const terms = new Set(db.prepare('SELECT term FROM items_vocab').pluck().all());
  const ids = new Set(db.prepare('SELECT id FROM items').pluck().all());
  db.close();
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const word = (alphabet, min, max) =>
    Array.from(
      { length: min + Math.floor(rnd() * (max - min + 1)) },
      () => alphabet[Math.floor(rnd() * alphabet.length)],
    ).join('');
  const queries = new Set();
  while (queries.size < FLOOD) {
    const w = word('abcdefghijklmnopqrstuvwxyz', 5, 10);
    if (!terms.has(w)) queries.add(w);
  }
  const itemIds = new Set();
  while (itemIds.size < FLOOD) {
    const id = word('0123456789', 6, 9);
    if (!ids.has(id)) itemIds.add(id);
  }
  return { queries: [...queries], ids: [...itemIds], terms: terms.size };
}

async function metric(app, name, labels) {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name) && line.includes(labels))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

async function shieldReady(app) {
  for (let i = 0; i < 600; i++) {
    const body = await (await fetch(`${app.url}/health/ready`)).json();
    if (body.info?.cacheShield?.status === 'up' || body.details?.cacheShield?.status === 'up')
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the shield did not become ready');
}

/**
 * Each of `paths` requested once, in order, by autocannon. With `amount` autocannon only notices the end on
 * its 1-second tick, so the elapsed time is taken from the start to the last response instead.
 */
function flood(app, paths) {
  let i = 0;
  const first = performance.now();
  let last = first;
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: app.url,
        connections: CONNECTIONS,
        amount: paths.length,
        requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }],
      },
      (err, res) => (err ? reject(err) : resolve({ ...res, seconds: (last - first) / 1000 })),
    );
    inst.on('response', () => (last = performance.now()));
  });
}

async function main() {
  console.log(
    `bench:shield — Bloom n=${N.toLocaleString()} p=${P}, each implementation in its own process; junk flood ${FLOOD.toLocaleString()} requests per route, ${CONNECTIONS} connections`,
  );
  const ours = bloomInChild('ours');
  const theirs = bloomInChild('bloom-filters');
  table([ours, theirs]);
  console.log(
    `ours vs bloom-filters@3: build ${(theirs.buildMs / ours.buildMs).toFixed(1)}× faster, lookups ${(ours.absentPerSec / theirs.absentPerSec).toFixed(1)}× (absent) / ${(ours.presentPerSec / theirs.presentPerSec).toFixed(1)}× (present) faster; bytes = m/8: ours ${ours.bytes === ours['m/8']}, bloom-filters ${theirs.bytes === theirs['m/8']}`,
  );

  const { queries, ids, terms } = junk();
  console.log(
    `junk: ${queries.length} queries (none of ${terms} indexed terms), ${ids.length} ids (none indexed)`,
  );
  const base = {
    policies: {
      search: { locks: { rateLimit: { mode: 'off' } } },
      'search-item': { locks: { rateLimit: { mode: 'off' } } },
    },
  };
  const unshielded = JSON.parse(JSON.stringify(base));
  for (const p of Object.values(unshielded.policies)) p.locks.cacheShield = { mode: 'off' };
  const redis = await startRedis();
  const variants = [
    ['shielded, memory store', { CONFIG_FILE: writeConfig(base) }],
    [
      'shielded, Redis store',
      {
        CONFIG_FILE: writeConfig(base),
        REDIS_URL: redis.url,
        RAMPART_ENV: 'bench',
        REDIS_COMMAND_TIMEOUT_MS: '1000',
      },
    ],
    ['unshielded', { CONFIG_FILE: writeConfig(unshielded) }],
  ];
  const rows = [];
  try {
    for (const adapter of ['express', 'fastify']) {
      // All variants up at once, then interleaved rounds on fresh keys: the machine is shared, so each variant sees the same load.
      const apps = [];
      for (const [variant, env] of variants)
        apps.push([variant, await startApp({ HTTP_ADAPTER: adapter, LOG_LEVEL: 'error', ...env })]);
      try {
        for (const [, app] of apps) await shieldReady(app);
        for (const [route, policy, all] of [
          ['/v1/search?q=<junk>', 'search', queries.map((q) => `/v1/search?q=${q}`)],
          ['/v1/search/items/<junk>', 'search-item', ids.map((id) => `/v1/search/items/${id}`)],
        ]) {
          const warm = all.slice(0, 2_000);
          const measured = all.slice(2_000);
          const acc = Object.fromEntries(
            apps.map(([v]) => [
              v,
              { n: 0, seconds: 0, forwarded: 0, rps: [], p99: [], non2xx: 0, errors: 0 },
            ]),
          );
          for (const [, app] of apps) await flood(app, warm); // these keys are then cached: not counted below
          for (let round = 0; round < ROUNDS; round++) {
            const chunk = measured.slice(
              Math.floor((round * measured.length) / ROUNDS),
              Math.floor(((round + 1) * measured.length) / ROUNDS),
            );
            for (const [variant, app] of apps) {
              const fwd0 = await metric(
                app,
                'rampart_shield_forwarded_total',
                `policy="${policy}"`,
              );
              const res = await flood(app, chunk);
              const a = acc[variant];
              a.forwarded +=
                (await metric(app, 'rampart_shield_forwarded_total', `policy="${policy}"`)) - fwd0;
              a.n += res.requests.total;
              a.rps.push(res.requests.total / res.seconds);
              a.p99.push(res.latency.p99);
              a.non2xx += res.non2xx;
              a.errors += res.errors + res.timeouts;
            }
          }
          const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
          const off = median(acc.unshielded.rps);
          for (const [variant] of apps) {
            const a = acc[variant];
            const shielded = variant !== 'unshielded';
            rows.push({
              adapter,
              variant,
              route,
              requests: a.n,
              'req/s (median round)': Math.round(median(a.rps)),
              '÷ unshielded': +(median(a.rps) / off).toFixed(2),
              'p99 ms': median(a.p99),
              'reached backend': shielded ? a.forwarded : a.n,
              'fraction to backend': shielded ? +(a.forwarded / a.n).toFixed(5) : 1,
              'goal ≤ 1.5p': shielded ? (a.forwarded / a.n <= 1.5 * P ? 'yes' : 'NO') : '',
              non2xx: a.non2xx,
              errors: a.errors,
            });
          }
        }
      } finally {
        for (const [, app] of apps) await app.stop();
      }
    }
  } finally {
    await redis.stop();
  }
  table(rows);
}

await main();

// bench: memory — what embedded mode keeps per subject, and that it stays bounded (issue 29).
// 1) 1,000,000 distinct IPv6 /64s through the memory rate-limit, risk and deny-cache stores with
//    their default caps (the limiter's store calls, no HTTP): RSS and heap before and after, the
//    stores' entry counts, and the bytes one entry costs (heap after GC ÷ entries).
// 2) With Redis: bytes per key (MEMORY USAGE) of a subject's 30-day risk record, without and with
//    a signal, and of its buckets, on ONE private redis-server.
// Run `npm run build` first (imports dist/). BENCH_SUBJECTS changes the sweep's size.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ROOT, startRedis, table } from './lib.mjs';

const imp = (p) => import(`${ROOT}dist/src/${p}`);
const { MemoryRateLimitStore } = await imp('locks/rate-limit/store/memory-rate-limit.store.js');
const { MemoryRiskRecords } = await imp('locks/rate-limit/store/risk/memory-risk-records.js');
const { MemoryRiskStore } = await imp('locks/rate-limit/store/risk/memory-risk.store.js');
const { DenyCache } = await imp('locks/rate-limit/limiter/deny-cache.js');
const { MEMORY_ENTRIES, RISK_RECORDS } = await imp('locks/rate-limit/core/memory-caps.js');
const { MemoryStoreFullError } = await imp('common/bounded-map.js');
const { riskKey, riskParams, observeParams } = await imp('locks/rate-limit/core/risk-params.js');
const { defaultRiskSettings } = await imp('locks/rate-limit/settings/risk.settings.js');
const { KeyHasher } = await imp('locks/rate-limit/subjects/key-hasher.js');

const N = Number(process.env.BENCH_SUBJECTS ?? 1_000_000);
const TAG = '{prod:rampart}';
const settings = defaultRiskSettings();
const params = riskParams(settings, undefined);
const observe = observeParams(settings);
const hasher = new KeyHasher(Buffer.alloc(32, 7));
const spec = (key, capacity, perSecond) => ({
  key,
  kind: 'g',
  capacity,
  intervalUs: 1e6 / perSecond,
  cost: 1,
  shadow: false,
  soft: false,
  degradable: false,
  risky: true,
  group: TAG,
});
const request = (part) => ({
  buckets: [
    spec(`rl:${TAG}:ip:${part}:inference.per-ip`, 120, 20),
    spec(`rl:${TAG}:ip:${part}:inference.per-ip-day`, 2_000, 2_000 / 86_400),
  ],
  degradeAt: 0,
  degradeFactor: 1,
  degradedHint: false,
  risk: { keys: [riskKey(TAG, 'ip', part)], params },
});
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const mb = (b) => (b / 1048576).toFixed(1);
const mem = () => (gc(), gc(), process.memoryUsage());

// 1) embedded mode
let now = 1_800_000_000_000;
const clock = { now: () => now, random: Math.random };
const store = new MemoryRateLimitStore(clock, new MemoryRiskRecords(RISK_RECORDS), MEMORY_ENTRIES);
const risk = new MemoryRiskStore(store.risk, clock);
const deny = new DenyCache(100_000);
const before = mem();
let full = 0;
const marks = [['subjects', 'RSS MB after GC', 'heap used MB', 'entries']];
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const part = hasher.part('ip', { value: `2001:db8:${i.toString(16)}::/64`, personal: true });
  const req = request(part);
  try {
    const d = store.decideSync(req);
    if (!d.allowed) deny.add(req.buckets[d.blocker].key, now + 1_000, 1, 1, now);
  } catch (err) {
    if (!(err instanceof MemoryStoreFullError)) throw err;
    full += 1;
    deny.add(req.buckets[0].key, now + 1_000, 1, 1, now);
  }
  if (i % 10 === 0)
    await risk.observe(
      [{ kind: 'signal', key: req.risk.keys[0], signal: 'bad_signature', count: 1, points: 5 }],
      observe,
    );
  if (i % 10 === 9) now += 1;
  if ((i + 1) % (N / 4) === 0)
    marks.push([
      (i + 1).toLocaleString(),
      mb(mem().rss),
      mb(process.memoryUsage().heapUsed),
      store.size + store.risk.size + deny.size,
    ]);
}
const secs = (performance.now() - t0) / 1000;
const after = mem();
console.log(
  `${N.toLocaleString()} subjects in ${secs.toFixed(1)} s (${Math.round(N / secs).toLocaleString()}/s); ` +
    `${full.toLocaleString()} refused by a full store (503)`,
);
table([
  ['', 'before', 'after', 'grown'],
  ['RSS MB', mb(before.rss), mb(after.rss), mb(after.rss - before.rss)],
  ['heap used MB', mb(before.heapUsed), mb(after.heapUsed), mb(after.heapUsed - before.heapUsed)],
]);
table([
  ['store', 'entries', 'cap'],
  ['rate_limit', store.size, MEMORY_ENTRIES],
  ['risk_records', store.risk.size, RISK_RECORDS],
  ['deny_cache', deny.size, 100_000],
]);
table(marks);
const entries = store.size + store.risk.size + deny.size;
console.log(
  `heap per entry (all three stores, keys included): ${Math.round((after.heapUsed - before.heapUsed) / entries)} B`,
);

// 2) Redis: MEMORY USAGE of one subject's keys
const redisProc = await startRedis();
const { Redis } = await import('ioredis');
const r = new Redis(redisProc.url);
const usage = async (k) => Number(await r.memory('USAGE', k, 'SAMPLES', '0'));
const fields = (now) => ['f', now * 1000, 't', now * 1000];
const n = 1_000;
const at = Date.now();
const keys = { record: [], signalled: [], bucket: [] };
for (let i = 0; i < n; i++) {
  const part = hasher.part('ip', { value: `2001:db8:${i.toString(16)}::/64`, personal: true });
  const k = riskKey(TAG, 'ip', part);
  const s = riskKey(TAG, 'ip', `${part}s`);
  await r.hset(k, ...fields(at));
  await r.pexpire(k, settings.ttlMs);
  await r.hset(
    s,
    ...fields(at),
    's',
    at * 1000 + 30e6,
    'n:bad_signature',
    3,
    'l:bad_signature',
    at * 1000,
  );
  await r.pexpire(s, settings.ttlMs);
  const b = `rl:${TAG}:ip:${part}:inference.per-ip`;
  await r.set(b, String(at * 1000 + 50_000), 'PX', 7_000);
  keys.record.push(k);
  keys.signalled.push(s);
  keys.bucket.push(b);
}
const avg = async (ks) =>
  Math.round((await Promise.all(ks.map(usage))).reduce((a, b) => a + b, 0) / ks.length);
const [rec, sig, buck] = [
  await avg(keys.record),
  await avg(keys.signalled),
  await avg(keys.bucket),
];
table([
  ['Redis key', 'bytes (MEMORY USAGE)', 'per 1M subjects'],
  ['risk record (first seen, 30-day TTL)', rec, `${mb(rec * 1e6)} MB`],
  ['risk record with a signal', sig, `${mb(sig * 1e6)} MB`],
  ['GCRA bucket (string, TTL = refill time)', buck, `${mb(buck * 1e6)} MB`],
]);
await r.quit();
await redisProc.stop();
process.exit(0);

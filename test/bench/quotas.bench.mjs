// bench: quotas — what the risk score costs a rate-limit decision. The same three GCRA rules (per-ip,
// per-user, global) decided on ONE private redis-server by the Redis store, side by side in one run:
//   risk off — the fast path, same-turn decisions batched into one ratelimit_decide_batch call;
//   risk on  — the subjects' risk records read in the same ratelimit_decide call (general path).
// Reports decisions/s (50 concurrent callers, one process) and Redis CPU µs per decision (INFO
// commandstats). Run `npm run build` first (imports dist/).
import { ROOT, SECONDS, CONNECTIONS, startRedis, table } from './lib.mjs';

const { loadAppConfig } = await import(`${ROOT}dist/src/app.config.js`);
const { RedisService } = await import(`${ROOT}dist/src/redis/redis.service.js`);
const { MetricsService } = await import(`${ROOT}dist/src/metrics/metrics.service.js`);
const { RedisRateLimitStore } = await import(
  `${ROOT}dist/src/locks/rate-limit/store/redis-rate-limit.store.js`
);
const { riskParams } = await import(`${ROOT}dist/src/locks/rate-limit/core/risk-params.js`);
const { defaultRiskSettings } = await import(
  `${ROOT}dist/src/locks/rate-limit/settings/risk.settings.js`
);

const redisProc = await startRedis();
const redis = new RedisService(
  loadAppConfig({
    LOG_LEVEL: 'silent',
    REDIS_URL: redisProc.url,
    REDIS_COMMAND_TIMEOUT_MS: '2000',
  }),
  new MetricsService(),
);
await redis.onModuleInit();
const store = new RedisRateLimitStore(redis, { clock: 'redis', cluster: false });
const TAG = '{bench:rampart}';
const params = riskParams(defaultRiskSettings(), undefined);
const HUGE = 1e9;
const gcra = (key, risky) => ({
  key,
  kind: 'g',
  capacity: HUGE,
  intervalUs: 1e-3,
  cost: 1,
  shadow: false,
  soft: false,
  degradable: false,
  risky,
  group: TAG,
});

function request(i, risk) {
  const s = i % 1000;
  const buckets = [
    gcra(`rl:${TAG}:ip:ip${s}:b.per-ip`, risk),
    gcra(`rl:${TAG}:user:u${s}:b.per-user`, risk),
    gcra(`rl:${TAG}:global:-:b.global`, false),
  ];
  return {
    buckets,
    degradeAt: 0,
    degradeFactor: 1,
    degradedHint: false,
    risk: risk
      ? { keys: [`rl:${TAG}:risk:ip:ip${s}`, `rl:${TAG}:risk:user:u${s}`], params }
      : undefined,
  };
}

function usec() {
  const s = redisProc.commandstats();
  return (s.evalsha?.usec ?? 0) + (s.eval?.usec ?? 0);
}

async function run(risk, seconds) {
  let n = 0;
  const until = Date.now() + seconds * 1000;
  const u0 = usec();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      for (let i = c; Date.now() < until; i += CONNECTIONS) {
        await store.decide(request(i, risk));
        n++;
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  return { perSec: n / s, usecPerDecision: (usec() - u0) / n };
}

await run(false, 1); // warm: scripts loaded, JIT
await run(true, 1);
const rows = [];
const sums = { off: { perSec: 0, us: 0 }, on: { perSec: 0, us: 0 } };
const seconds = Math.max(2, Math.round(SECONDS / 2));
for (let round = 1; round <= 2; round++) {
  for (const risk of [false, true]) {
    const r = await run(risk, seconds);
    const k = risk ? 'on' : 'off';
    sums[k].perSec += r.perSec / 2;
    sums[k].us += r.usecPerDecision / 2;
    rows.push({
      round,
      risk: k,
      'decisions/s': Math.round(r.perSec),
      'redis µs/decision': r.usecPerDecision.toFixed(1),
    });
  }
}
table(rows);
console.log(
  `risk on / risk off: ${(sums.on.perSec / sums.off.perSec).toFixed(2)}× decisions/s, ` +
    `${(sums.on.us / sums.off.us).toFixed(2)}× Redis CPU per decision`,
);
await redis.onApplicationShutdown();
process.kill(redisProc.pid);
process.exit(0);

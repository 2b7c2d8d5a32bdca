// Admin API: how fast a change made on one instance is in force on another,
// through pub/sub versus the periodic version check alone (an announcement
// written without PUBLISH, as when a message is lost), measured side by side
// in one run on two instances of the built app sharing a private redis-server.
// Also: the admin round trip, and the Redis cost of the idle safety net.
//   npm run build && node test/bench/admin.bench.mjs   (ADMIN_BENCH_CHANGES=n)
import { Redis } from 'ioredis';
import { startApp, startRedis, table, writeConfig } from './lib.mjs';

const CHANGES = Number(process.env.ADMIN_BENCH_CHANGES ?? 40);
const LOST = Math.max(5, Math.round(CHANGES / 4));
const TOKEN = 'bench-admin-token-0123456789abcdef';
const ENV = `adminbench${process.pid}`;
const H = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x) => Math.round(x * 10) / 10;

async function version(app) {
  const r = await fetch(`${app.url}/admin/policies`, { headers: H });
  return (await r.json()).version;
}

/** Milliseconds from `t0` until `app` runs `target` (polled back to back). */
async function seenAfter(app, target, t0) {
  for (;;) {
    if ((await version(app)) >= target) return performance.now() - t0;
    if (performance.now() - t0 > 10_000) throw new Error(`version ${target} not seen within 10 s`);
  }
}

// Only the signature and rate-limit locks matter here; a generous admin limit so the bench is not throttled.
const config = writeConfig({
  policies: {
    ...Object.fromEntries(
      ['search', 'search-item', 'inference', 'whoami', 'admin', 'notifications'].map((p) => [
        p,
        { locks: { cacheShield: { mode: 'off' }, circuitBreaker: { mode: 'off' } } },
      ]),
    ),
    admin: {
      locks: {
        cacheShield: { mode: 'off' },
        circuitBreaker: { mode: 'off' },
        rateLimit: {
          mode: 'enforce',
          failMode: 'open',
          rules: [{ name: 'per-ip', dimension: 'ip', capacity: 100000, rate: '100000/s' }],
        },
      },
    },
  },
});

const redis = await startRedis();
const env = { REDIS_URL: redis.url, RAMPART_ENV: ENV, ADMIN_TOKEN: TOKEN, CONFIG_FILE: config };
const [a, b] = [await startApp(env), await startApp(env)];
const raw = new Redis(redis.url);
try {
  // Warm-up: the first change also stores the boot set as version 1.
  await fetch(`${a.url}/admin/policies/whoami/locks/signature`, {
    method: 'PATCH',
    headers: H,
    body: JSON.stringify({ mode: 'shadow' }),
  });

  const roundTrip = [];
  const pubsub = [];
  for (let i = 0; i < CHANGES; i++) {
    const t0 = performance.now();
    const r = await fetch(`${a.url}/admin/policies/whoami/locks/signature`, {
      method: 'PATCH',
      headers: H,
      body: JSON.stringify({ mode: i % 2 ? 'shadow' : 'enforce' }),
    });
    const { version: v } = await r.json();
    const t1 = performance.now();
    roundTrip.push(t1 - t0);
    pubsub.push(await seenAfter(b, v, t1));
  }

  // Lost announcements: the commit script's writes minus the PUBLISH; only the periodic check can find them.
  const prefix = `cfg:{${ENV}:rampart}:policies`;
  const lost = [];
  for (let i = 0; i < LOST; i++) {
    const active = Number(await raw.get(`${prefix}:active`));
    const current = JSON.parse(await raw.get(`${prefix}:v:${active}`));
    current.policies.whoami.locks.signature.mode = i % 2 ? 'shadow' : 'enforce';
    const meta = {
      version: active + 1,
      at: new Date().toISOString(),
      actor: 'bench',
      summary: 'no announcement',
    };
    // Start at a random phase of the 1 s check so the numbers are not tied to the loop's rhythm.
    await new Promise((r) => setTimeout(r, Math.random() * 1000));
    const t0 = performance.now();
    await raw
      .multi()
      .set(`${prefix}:v:${active + 1}`, JSON.stringify({ ...meta, policies: current.policies }))
      .hset(`${prefix}:meta`, active + 1, JSON.stringify(meta))
      .incr(`${prefix}:active`)
      .exec();
    lost.push(await seenAfter(b, active + 1, t0));
  }

  // Idle cost of the safety net: Redis commands per second from two idle instances.
  const before = redis.commandstats();
  const idleSeconds = 5;
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const after = redis.commandstats();
  const idle = Object.fromEntries(
    Object.keys(after)
      .filter((c) => after[c].calls - (before[c]?.calls ?? 0) > 0 && !['info', 'ping'].includes(c))
      .map((c) => [c, ms((after[c].calls - (before[c]?.calls ?? 0)) / idleSeconds)]),
  );

  console.log(
    `\nAdmin change propagation, instance A → instance B (${CHANGES} changes via the API, ${LOST} written without announcement)`,
  );
  table([
    {
      path: 'PATCH round trip on A (validate, commit, apply, audit)',
      n: CHANGES,
      p50_ms: ms(pct(roundTrip, 50)),
      p95_ms: ms(pct(roundTrip, 95)),
      max_ms: ms(Math.max(...roundTrip)),
    },
    {
      path: 'A answered → B runs it (pub/sub)',
      n: CHANGES,
      p50_ms: ms(pct(pubsub, 50)),
      p95_ms: ms(pct(pubsub, 95)),
      max_ms: ms(Math.max(...pubsub)),
    },
    {
      path: 'written → B runs it (periodic check only, 1 s)',
      n: LOST,
      p50_ms: ms(pct(lost, 50)),
      p95_ms: ms(pct(lost, 95)),
      max_ms: ms(Math.max(...lost)),
    },
  ]);
  console.log(
    `pub/sub is ${Math.round(pct(lost, 50) / pct(pubsub, 50))}× faster than the safety net alone (median); both stay under 1 s: ${Math.max(...pubsub) < 1000 && Math.max(...lost) < 1100 ? 'yes' : 'NO'}`,
  );
  console.log(`idle Redis commands per second from 2 instances (version check + counters):`, idle);
} finally {
  raw.disconnect();
  await Promise.all([a.stop(), b.stop()]);
  await redis.stop();
}

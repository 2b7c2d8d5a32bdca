// bench:telegram-outbound — the outbound sender on its own redis-server,
// against a fake Bot API that enforces 30 msg/s per bot and 1 msg/s per chat
// (fake-bot-api-limits.mjs), with 3 bots in one scope and 1,000 chats:
//   A. a backlog well over the budget: throughput next to the allowed budget
//      (3 × 30/s), and the 429s received after a 2 s warm-up; mid-run one bot
//      is answered retry_after: 5 — its sends inside that cooldown, and the
//      time until it is back at full rate;
//   B. jobs paced at 2/3 of the budget: end-to-end latency (POST accepted →
//      Telegram received) p50 / p99.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest } from '../../dist/src/sdk/sign-request.js';
import { startLimitedBotApi } from './fake-bot-api-limits.mjs';
import { startApp, startRedis, table, waitReady } from './lib.mjs';

const BOTS = 3;
const CHATS = 1000;
const BUDGET = BOTS * 30;
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 2400);
const token = (i) => `72000000${i}:AAOutboundBenchToken_abcdefghijklmnop`;
const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-tgo-'));
const APP = { appId: 'bench-app', secret: 'bench-secret-0123456789abcdef0123456789' };
writeFileSync(
  join(dir, 'apps.json'),
  JSON.stringify({
    apps: [{ id: APP.appId, tier: 'pro', secrets: [{ id: 'k1', secret: APP.secret }] }],
  }),
);
const api = await startLimitedBotApi();
const bots = Array.from({ length: BOTS }, (_, i) => {
  writeFileSync(join(dir, `bot${i}.token`), token(i));
  return {
    id: `bot${i}`,
    scope: 'bench',
    tokenFile: join(dir, `bot${i}.token`),
    secretTokens: ['bench_secret'],
    pathSecret: 'bench-path-secret-0123',
    mode: 'builtin',
  };
});
writeFileSync(
  join(dir, 'config.json'),
  JSON.stringify({
    telegram: { apiRoot: api.url, webhookInfoPollMs: 0, bots },
    // The per-app rule of the shipped `notifications` policy, widened so that the bench posts its backlog at once.
    policies: {
      notifications: {
        locks: {
          rateLimit: {
            mode: 'enforce',
            cost: 'notifications',
            rules: [{ name: 'per-app', dimension: 'app', capacity: 100000, rate: '100000/s' }],
          },
        },
      },
    },
  }),
);
const redis = await startRedis();
const app = await startApp({
  REDIS_URL: redis.url,
  REDIS_COMMAND_TIMEOUT_MS: '1000',
  CONFIG_FILE: join(dir, 'config.json'),
  APPS_FILE: join(dir, 'apps.json'),
});
await waitReady(app.url);

const accepted = new Map();
let seq = 0;
async function post(jobs) {
  const url = `${app.url}/v1/notifications`;
  const body = JSON.stringify({ jobs });
  const t = performance.now();
  let res;
  // A 503 (replay protection unavailable on a loaded machine) is posted again with a fresh signature.
  for (let i = 0; i < 10; i++) {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signRequest({ ...APP, method: 'POST', url, body }),
      },
      body,
    });
    if (res.status !== 503) break;
    await res.arrayBuffer();
    await sleep(50);
  }
  if (res.status !== 202) throw new Error(`POST ${res.status}: ${await res.text()}`);
  for (const j of jobs) accepted.set(j.payload.text, t);
}
const job = (chat) => ({
  job_id: `b${++seq}`,
  chat_id: chat,
  method: 'sendMessage',
  payload: { text: `b${seq}` },
  bot_scope: 'bench',
});
const ok = () => api.calls.filter((c) => c.status === 200);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A. Saturation, with one bot hit by retry_after: 5 mid-run.
const t0 = performance.now();
for (let i = 0; i < BACKLOG; i += 100)
  await post(Array.from({ length: 100 }, (_, k) => job(1 + ((i + k) % CHATS))));
await sleep(8_000 - (performance.now() - t0));
const victim = token(1);
api.inject(victim, 5);
while (ok().length < BACKLOG) await sleep(100);
const cd = api.cooldowns[0];
const steady = ok().filter((c) => c.at >= t0 + 2_000 && c.at < cd.at);
const throughput = steady.length / ((cd.at - t0 - 2_000) / 1000);
const late429 = api.calls.filter(
  (c) => c.status === 429 && c.at >= t0 + 2_000 && c !== api.calls.find((x) => x.at === cd.at),
);
const answered = api.calls.find((c) => c.at === cd.at).answeredAt;
const inside = api.calls.filter(
  (c) => c.token === victim && c.at > answered + 5 && c.at < cd.until,
);
const after = ok()
  .filter((c) => c.token === victim && c.at >= cd.until)
  .map((c) => c.at);
let full;
for (let i = 0; i < after.length && full === undefined; i++) {
  const n = after.filter((a) => a >= after[i] && a < after[i] + 1_000).length;
  if (n >= 0.95 * 30) full = after[i] + 1_000 - cd.until;
}

// B. Paced at 2/3 of the budget: latency.
const firstB = seq + 1;
const tB = performance.now();
for (let s = 0; s < 8; s++) {
  for (let k = 0; k < 6; k++) {
    await post(Array.from({ length: 10 }, (_, i) => job(1 + ((seq + i) % CHATS))));
    await sleep(Math.max(0, tB + s * 1000 + (k + 1) * 166 - performance.now()));
  }
}
while (ok().filter((c) => Number(c.text.slice(1)) >= firstB).length < seq - firstB + 1)
  await sleep(100);
const lat = ok()
  .filter((c) => Number(c.text.slice(1)) >= firstB)
  .map((c) => c.at - accepted.get(c.text))
  .sort((a, b) => a - b);
const pct = (p) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))].toFixed(0);

table([
  ['measure', 'value', 'goal'],
  [
    'throughput, steady (msg/s)',
    throughput.toFixed(1),
    `≥ ${(0.95 * BUDGET).toFixed(1)} (95% of ${BUDGET})`,
  ],
  ['throughput / budget', `${((100 * throughput) / BUDGET).toFixed(1)}%`, '≥ 95%'],
  ['429s after warm-up (not injected)', String(late429.length), '0'],
  ['sends inside the injected 5 s cooldown', String(inside.length), '0'],
  [
    'first send after the cooldown (ms)',
    after.length ? (after[0] - cd.until).toFixed(0) : 'none',
    '',
  ],
  ['back to ≥95% of 30/s, after cooldown (ms)', full === undefined ? 'never' : full.toFixed(0), ''],
  ['latency p50 at 60 msg/s (ms)', pct(50), ''],
  ['latency p99 at 60 msg/s (ms)', pct(99), ''],
  ['messages sent', String(ok().length), String(seq)],
]);
await app.stop();
await redis.stop();
await api.close();

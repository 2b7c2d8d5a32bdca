// bench:tokens-exact — is a token budget charged exactly what the upstream produced, and never overshot (issue 31)?
// TOKENS_EXACT_CALLS (default 10 000) signed chat completions of one app, TOKENS_EXACT_CONCURRENCY (default 48) at a
// time, through one instance on a private redis-server, against one tokens rule (`app-tokens-day`, total tokens per
// day, capacity ≈ 35 × calls: it runs out part-way). The mix (seeded): half streamed; 30 % of the upstream's answers
// omit `usage` (the service counts the streamed tokens); 20 % of the streams aborted by the client after a random
// number of chunks; 5 % answered 500 by the upstream. The upstream is a fake of this file (counting per call: the
// prompt tokens it reports, as OpenAI counts chat messages, plus every completion token it wrote, one per chunk,
// up to the client's abort). At the end: the bucket's count (Redis, after every settlement) vs the fake's sum, the
// difference, the highest count seen while running (polled) vs the capacity, and GET /admin/usage's totals.
// Run `npm run build` first (imports dist/).
/* global AbortController, TextDecoder */
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { ROOT, startApp, startRedis, waitReady, writeConfig } from './lib.mjs';

const { signRequest } = await import(`${ROOT}dist/src/sdk/index.js`);
const { promptTokens } = await import(`${ROOT}dist/src/inference/tokens/token-count.js`);

const CALLS = Number(process.env.TOKENS_EXACT_CALLS ?? 10_000);
const CONC = Number(process.env.TOKENS_EXACT_CONCURRENCY ?? 48);
const CAPACITY = Number(process.env.TOKENS_EXACT_CAPACITY ?? CALLS * 35);
const MODEL = 'gpt-4o-mini';
/** Shares of the mix; TOKENS_EXACT_MIX=stream,omit,fail,abort overrides (e.g. 0,0,0,0: plain JSON with usage). */
const [stream, omit, fail, abort] = (process.env.TOKENS_EXACT_MIX ?? '0.5,0.3,0.05,0.2')
  .split(',')
  .map(Number);
const MIX = { stream, omit, fail, abort };
const DEBUG = process.env.TOKENS_EXACT_DEBUG === '1';
// Each is one o200k_base token (checked below), so one chunk = one completion token.
const VOCAB = [' the', ' budget', ' is', ' charged', ' by', ' usage', ' and', ' never', ' over'];

const fake = await startFake();
const APP = { id: 'exact-app', secret: randomBytes(32).toString('base64url') };
const off = { mode: 'off' };
const config = writeConfig({
  policies: {
    inference: {
      locks: {
        cacheShield: off,
        circuitBreaker: off,
        rateLimit: {
          mode: 'enforce',
          rules: [
            // The policy's degrade needs a global request rule; raised so that it refuses nothing.
            { name: 'global', dimension: 'global', capacity: 1_000_000_000, rate: '1000000/s' },
            {
              name: 'app-tokens-day',
              dimension: 'app',
              algorithm: 'tokens',
              capacity: CAPACITY,
              window: '1d',
            },
          ],
        },
      },
    },
  },
});
const apps = writeConfig(
  { apps: [{ id: APP.id, tier: 'free', secrets: [{ id: 'k1', secret: APP.secret }] }] },
  'apps.json',
);
const redis = await startRedis();
const ADMIN = randomBytes(24).toString('base64url');
const app = await startApp({
  REDIS_URL: redis.url,
  RAMPART_ENV: 'exact',
  CONFIG_FILE: config,
  APPS_FILE: apps,
  ADMIN_TOKEN: ADMIN,
  INFERENCE_UPSTREAM_URL: fake.url,
}).catch(async (e) => {
  await redis.stop();
  fake.close();
  throw e;
});
let seed = 31;
/** mulberry32: the same mix on every run. */
const rnd = () => {
  let t = (seed = (seed + 0x6d2b79f5) | 0);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
// The tokens bucket (a hash of c, e: lua/lib/kind_tokens.lua): found once (a KEYS scan blocks Redis: polled, it
// made the nonce checks time out), then its count read with one HGET per poll.
const FIND = `for _, k in ipairs(redis.call('KEYS', '*')) do
  if redis.call('TYPE', k).ok == 'hash' and redis.call('HEXISTS', k, 'e') == 1 then return k end
end
return ''`;
let bucketKey = '';
const bucket = () => {
  bucketKey ||= redis.cli('EVAL', FIND, '0').trim();
  return bucketKey ? Number(redis.cli('HGET', bucketKey, 'c').trim() || 0) : 0;
};
const status = {};
const load0 = (await import('node:os')).loadavg();
const t0 = Date.now();
let peak = 0;
let polling = true;
const poller = (async () => {
  while (polling) {
    peak = Math.max(peak, bucket());
    await new Promise((r) => setTimeout(r, 100));
  }
})();
try {
  await waitReady(app.url);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      for (let i = next++; i < CALLS; i = next++) await call(i);
    }),
  );
  await new Promise((r) => setTimeout(r, 500)); // the last settlements (sent when each answer ended)
  polling = false;
  await poller;
  const charged = bucket();
  peak = Math.max(peak, charged);
  const usage = await (
    await fetch(`${app.url}/admin/usage?app=${APP.id}&period=day`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    })
  ).json();
  const produced = fake.produced();
  // Settlements that failed (Redis timeout): their reservation stays in the bucket and no usage is recorded.
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  const failedSettles = metrics
    .split('\n')
    .filter(
      (l) => l.startsWith('rampart_ratelimit_store_errors_total') && l.includes('kind="settle"'),
    )
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
  console.log(
    `bench:tokens-exact — ${CALLS} calls, ${CONC} at a time, ${((Date.now() - t0) / 1000).toFixed(1)} s; load average before ${load0.map((x) => x.toFixed(2)).join(' ')}`,
  );
  console.log('answers by kind/status:', status);
  console.log('fake upstream:', fake.stats);
  console.log(
    'charged − produced by how (service: rampart_inference_charge*; fake: how it ended each call):',
  );
  console.table(byHow(metrics, fake.byCat));
  console.table([
    {
      capacity: CAPACITY,
      'charged (bucket)': charged,
      'produced (fake)': produced,
      'charged − produced': charged - produced,
      'usage API total': (usage.totals?.promptTokens ?? 0) + (usage.totals?.completionTokens ?? 0),
      'peak charged': peak,
      overshoot: Math.max(0, peak - CAPACITY),
      'failed settlements': failedSettles,
    },
  ]);
} finally {
  polling = false;
  await app.stop();
  await redis.stop();
  fake.close();
}

/**
 * The difference per cause: the service's settlements by `how` (calls, tokens charged and reported) beside the fake's
 * calls by how it ended them. A row whose difference is not 0 names the cause; calls that moved between rows (e.g. an
 * abort whose drain still reached the usage chunk: the fake ended it whole) show as calls ≠ fake calls.
 */
function byHow(metrics, cats) {
  const series = (name) => {
    const out = {};
    for (const l of metrics.split('\n')) {
      const m = new RegExp(`^${name}\\{how="([a-z_]+)"\\} (\\S+)$`).exec(l);
      if (m) out[m[1]] = Number(m[2]);
    }
    return out;
  };
  const calls = series('rampart_inference_charge_total');
  const charged = series('rampart_inference_charged_tokens_total');
  const reported = series('rampart_inference_reported_tokens_total');
  const rows = [
    ['usage', ['usage']],
    ['counted', ['counted']],
    ['abort', ['abort_partial', 'abort_cut']],
    ['fail', ['error_partial', 'prompt_only', 'error_refund']],
  ];
  const sum = (o, hows) => hows.reduce((n, h) => n + (o[h] ?? 0), 0);
  return rows.flatMap(([cat, hows]) =>
    hows.map((how, i) => ({
      how,
      calls: calls[how] ?? 0,
      charged: charged[how] ?? 0,
      reported: reported[how] ?? 0,
      'fake ended as': i === 0 ? cat : '',
      'fake calls': i === 0 ? (cats[cat]?.calls ?? 0) : '',
      produced: i === 0 ? (cats[cat]?.tokens ?? 0) : '',
      'charged − produced': i === 0 ? sum(charged, hows) - (cats[cat]?.tokens ?? 0) : '',
    })),
  );
}

/** One call: its kind drawn from the seeded mix; a stream read (or aborted after some chunks) to its end. */
async function call(i) {
  const stream = rnd() < MIX.stream;
  const omit = rnd() < MIX.omit;
  const fail = rnd() < MIX.fail;
  const abortAfter = stream && rnd() < MIX.abort ? 1 + Math.floor(rnd() * 20) : 0;
  const maxTokens = 8 + Math.floor(rnd() * 57);
  const words = 1 + Math.floor(rnd() * maxTokens);
  const tags = `${omit ? '#omit ' : ''}${fail ? '#fail ' : ''}#words=${words}`;
  const body = JSON.stringify({
    model: MODEL,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: `Call ${i}: tell me about budgets. ${tags}` },
    ],
    max_tokens: maxTokens,
    ...(stream ? { stream: true } : {}),
  });
  const path = '/v1/chat/completions';
  const headers = {
    'content-type': 'application/json',
    ...signRequest({ appId: APP.id, secret: APP.secret, method: 'POST', url: path, body }),
  };
  const ac = new AbortController();
  const kind = `${stream ? (abortAfter ? 'stream-abort' : 'stream') : 'json'}`;
  let code = 'error';
  try {
    const res = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers,
      body,
      signal: ac.signal,
    });
    code = res.status;
    if (DEBUG && code !== 200 && code !== 429) console.log(i, kind, code, await res.text());
    if (!abortAfter || res.status !== 200) await res.arrayBuffer();
    else {
      const reader = res.body.getReader();
      let events = 0;
      const dec = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        events += dec.decode(value, { stream: true }).split('\n\n').length - 1;
        if (events > abortAfter) {
          ac.abort();
          break;
        }
      }
    }
  } catch {
    /* aborted */
  }
  const k = `${kind} ${code}`;
  status[k] = (status[k] ?? 0) + 1;
}

/** The fake upstream: chat completions whose behaviour the prompt's tags choose; counts what it produced. */
async function startFake() {
  for (const w of VOCAB)
    if (promptTokens(MODEL, [{ content: w }], 1) !== 3 + 4 + 1)
      throw new Error(`"${w}" is not one token`);
  let produced = 0;
  // Per call, what it produced, by how the fake ended it (usage: it wrote its usage; counted: it ended without usage;
  // abort: it saw the service's close first; fail: it answered 500): the counterpart of the service's `how` labels.
  const byCat = {};
  const done = (cat, tokens) => {
    const c = (byCat[cat] ??= { calls: 0, tokens: 0 });
    c.calls++;
    c.tokens += tokens;
  };
  // refused: chunks it tried to write after its socket had ended (the service's close seen, its FIN not sent yet):
  // the socket refuses them (write after end), so they never leave the fake and are not counted as produced.
  const stats = { calls: 0, streams: 0, aborted: 0, failed: 0, omitted: 0, refused: 0 };
  const srv = createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model' }] }));
    }
    const b = JSON.parse(raw);
    stats.calls++;
    const text = b.messages.at(-1).content;
    if (text.includes('#fail')) {
      stats.failed++;
      done('fail', 0);
      res.writeHead(500, { 'content-type': 'application/json' });
      return res.end('{"error":{"message":"boom","type":"server_error"}}');
    }
    const prompt = promptTokens(MODEL, b.messages, 1);
    const n = Number(/#words=(\d+)/.exec(text)[1]);
    const omit = text.includes('#omit');
    if (omit) stats.omitted++;
    let sent = 0;
    produced += prompt; // the upstream read the prompt
    const usage = () => ({
      prompt_tokens: prompt,
      completion_tokens: sent,
      total_tokens: prompt + sent,
    });
    const base = { id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 0, model: MODEL };
    if (!b.stream) {
      sent = n;
      produced += n;
      done(omit ? 'counted' : 'usage', prompt + n);
      const content = Array.from({ length: n }, (_, j) => VOCAB[j % VOCAB.length]).join('');
      const out = {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(omit ? out : { ...out, usage: usage() }));
    }
    stats.streams++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (o) => res.write(`data: ${JSON.stringify({ ...base, ...o })}\n\n`);
    ev({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    for (let j = 0; j < n; j++) {
      await new Promise((r) => setTimeout(r, 1));
      if (res.destroyed || res.writableEnded) {
        stats.aborted++;
        return done('abort', prompt + sent);
      }
      if (!res.socket?.writable) {
        stats.refused++;
        stats.aborted++;
        return done('abort', prompt + sent);
      }
      ev({
        choices: [{ index: 0, delta: { content: VOCAB[j % VOCAB.length] }, finish_reason: null }],
      });
      sent++;
      produced++;
    }
    ev({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    const reports = !omit && b.stream_options?.include_usage;
    if (reports) ev({ choices: [], usage: usage() });
    done(reports ? 'usage' : 'counted', prompt + sent);
    res.end('data: [DONE]\n\n');
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${srv.address().port}/v1`,
    stats,
    produced: () => produced,
    byCat,
    close: () => (srv.closeAllConnections(), srv.close()),
  };
}

// A fake Telegram Bot API as strict as Telegram's flood control, shared by the
// outbound sender's tests and bench:telegram-outbound (plain ESM, so the bench
// runs it without a TypeScript loader; types in strict-bot-api.d.mts).
//
// Profile `strict` (the default): at most `perBot` successful send* calls per
// token in ANY sliding `windowMs` window, and `perChat` per token × chat. The
// first call over either limit gets 429 with `parameters.retry_after:
// retryAfter`, and from that call on the whole token (bot limit) or that chat
// of that token (chat limit) is in cooldown for `retryAfter` seconds: every
// call arriving inside a cooldown is answered 429 again and recorded as a
// violation — `inFlight` when it arrived before the 429 that started the
// cooldown had been answered (it left before the sender could know).
// Profile `tolerant`: the old bench limiter, a refilling bucket (GCRA) with
// bursts of 5 per token and 50 ms of slack per chat; cooldowns as above.
//
// `latencyMs` delays every answer (a network round trip); `inject(token, s)`
// answers the token's next send with retry_after s. Times are epoch ms
// (`performance.timeOrigin + performance.now()`), comparable across processes.
// `node strict-bot-api.mjs '<options json>'` serves it in its own process
// (prints its URL; GET /__record answers the records, POST /__inject {token, seconds}).
import { once } from 'node:events';
import { createServer } from 'node:http';

const epoch = () => performance.timeOrigin + performance.now();

export async function startStrictBotApi(opts = {}) {
  const o = {
    profile: 'strict',
    perBot: 30,
    perChat: 1,
    windowMs: 1000,
    retryAfter: 3,
    latencyMs: 0,
    ...opts,
  };
  const rec = { calls: [], cooldowns: [], violations: [] };
  /** token (or token|chat) → arrival times of its successful sends, newest last. */
  const logs = new Map();
  /** token (or token|chat) → the cooldown in force (last one). */
  const cool = new Map();
  const tats = new Map();
  const pending = new Map();
  let mid = 1;

  const slidingFull = (key, limit, at) => {
    const log = logs.get(key) ?? [];
    while (log.length > 0 && log[0] <= at - o.windowMs) log.shift();
    logs.set(key, log);
    return log.length >= limit;
  };
  const bucketFull = (key, limit, burst, slack, at) => {
    const t = o.windowMs / limit;
    const tat = Math.max(tats.get(key) ?? at, at);
    if (tat + t - at > burst * t + slack) return true;
    tats.set(key, tat + t);
    return false;
  };
  const full = (key, limit, isChat, at) =>
    o.profile === 'tolerant'
      ? bucketFull(key, limit, isChat ? 1 : 5, isChat ? 50 : 0, at)
      : slidingFull(key, limit, at);

  /** Decides one send* call: undefined (delivered) or the 429's retry_after. */
  function decide(call) {
    const { at, token } = call;
    const chatKey = `${token}|${call.chat}`;
    for (const key of [token, chatKey]) {
      const c = cool.get(key);
      if (c && at < c.until) {
        const v = { token, chat: call.chat, at, cooldownAt: c.at, answeredAt: c.answeredAt };
        v.inFlight = c.answeredAt === undefined || at <= c.answeredAt;
        rec.violations.push(v);
        call.violation = true;
        call.cooldown = c;
        return Math.max(1, Math.ceil((c.until - at) / 1000));
      }
    }
    const forced = pending.get(token);
    let scope;
    let retry = o.retryAfter;
    if (forced !== undefined) {
      pending.delete(token);
      scope = 'injected';
      retry = forced;
    } else if (full(token, o.perBot, false, at)) scope = 'bot';
    else if (full(chatKey, o.perChat, true, at)) scope = 'chat';
    if (scope === undefined) {
      logs.get(token)?.push(at);
      if (o.profile === 'strict')
        (logs.get(chatKey) ?? logs.set(chatKey, []).get(chatKey)).push(at);
      return undefined;
    }
    const c = { token, chat: scope === 'chat' ? call.chat : undefined, scope, at };
    c.until = at + retry * 1000;
    cool.set(scope === 'chat' ? chatKey : token, c);
    rec.cooldowns.push(c);
    call.cooldown = c;
    return retry;
  }

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const at = epoch();
      const text = Buffer.concat(chunks).toString();
      if (req.url === '/__record') return res.end(JSON.stringify(rec));
      if (req.url === '/__inject') {
        const b = JSON.parse(text);
        pending.set(b.token, b.seconds);
        return res.end('{}');
      }
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      const body = text ? JSON.parse(text) : {};
      const call = { token: m?.[1], method: m?.[2], chat: String(body.chat_id), text: body.text };
      call.at = at;
      call.status = 200;
      const isSend = /^send/.test(call.method ?? '');
      const retry = isSend ? decide(call) : undefined;
      if (isSend) rec.calls.push(call);
      const answer = () => {
        call.answeredAt = epoch();
        if (call.cooldown && call.cooldown.answeredAt === undefined && !call.violation)
          call.cooldown.answeredAt = call.answeredAt;
        delete call.cooldown;
        if (retry !== undefined) {
          call.status = 429;
          const payload = {
            ok: false,
            error_code: 429,
            description: `Too Many Requests: retry after ${retry}`,
            parameters: { retry_after: retry },
          };
          return res
            .writeHead(429, { 'content-type': 'application/json' })
            .end(JSON.stringify(payload));
        }
        const result = isSend
          ? {
              message_id: mid++,
              date: Math.floor(at / 1000),
              chat: { id: Number(body.chat_id), type: 'private' },
            }
          : true;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ ok: true, result }));
      };
      if (o.latencyMs > 0) setTimeout(answer, o.latencyMs);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    ...rec,
    options: o,
    inject(token, seconds) {
      pending.set(token, seconds);
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const api = await startStrictBotApi(JSON.parse(process.argv[2] ?? '{}'));
  process.stdout.write(`${api.url}\n`);
}

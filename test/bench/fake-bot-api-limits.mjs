// A fake Telegram Bot API for bench:telegram-outbound that ENFORCES limits the
// way the FAQ states them: about 30 messages a second per bot (GCRA, short
// bursts of 5 allowed) and 1 message a second per chat (a 50 ms tolerance for
// network jitter); over either → 429 with retry_after 1. `inject(token, s)`
// answers that bot's next call with retry_after s and records the cooldown.
import { once } from 'node:events';
import { createServer } from 'node:http';

export async function startLimitedBotApi({ perBot = 30, botBurst = 5, perChat = 1 } = {}) {
  const botTat = new Map();
  const chatTat = new Map();
  const calls = [];
  const state = { calls, pending: new Map(), cooldowns: [] };
  let mid = 1;
  const over = (map, key, rate, burst, now) => {
    const t = 1000 / rate;
    const tat = Math.max(map.get(key) ?? now, now);
    if (tat + t - now > burst * t + (rate === perChat ? 50 : 0)) return true;
    map.set(key, tat + t);
    return false;
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      const token = m?.[1];
      const at = performance.now();
      const send = (status, payload) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      };
      const call = { token, chat: String(body.chat_id), text: body.text, at, status: 200 };
      calls.push(call);
      const forced = state.pending.get(token);
      let retry;
      if (forced !== undefined) {
        state.pending.delete(token);
        state.cooldowns.push({ token, at, until: at + forced * 1000 });
        retry = forced;
      } else if (
        over(botTat, token, perBot, botBurst, at) ||
        over(chatTat, `${token}|${call.chat}`, perChat, 1, at)
      )
        retry = 1;
      if (retry !== undefined) {
        call.status = 429;
        call.answeredAt = performance.now();
        return send(429, {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${retry}`,
          parameters: { retry_after: retry },
        });
      }
      send(200, {
        ok: true,
        result: {
          message_id: mid++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(body.chat_id), type: 'private' },
        },
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    ...state,
    inject(token, seconds) {
      state.pending.set(token, seconds);
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

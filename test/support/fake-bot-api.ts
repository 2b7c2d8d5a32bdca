/**
 * A fake Telegram Bot API for tests and benchmarks: a real `node:http`
 * server on loopback serving `POST /bot<token>/<method>` and recording every
 * call, so a test sees exactly what Rampart sent to Telegram.
 *
 *   const api = await startFakeBotApi();
 *   // CONFIG_FILE telegram.apiRoot: api.url
 *   await api.waitFor((c) => c.method === 'sendMessage');
 *   api.calls            // [{ token, method, body, at }]
 *   api.webhookInfo = { pending_update_count: 3, last_error_message: '…' }
 *
 * Methods: sendMessage (answers a Message), answerCallbackQuery, setWebhook
 * (stores url, secret_token, allowed_updates), getWebhookInfo (the stored
 * webhook plus `webhookInfo`), getMe, getChatMemberCount (`memberCounts[chat]`, else `memberCount`,
 * default 1); anything else answers `{ok: true, result: true}`.
 * `failWith(429, retryAfter)` makes every call answer a Bot API error.
 *
 * Per bot, chat or method (the outbound sender's tests): `rule({ token, method, chat, status,
 * retryAfter, times, hang })` answers matching calls with that error (or never answers when `hang`)
 * for the next `times` calls (default: until removed); `acceptTokens([...])` answers 401 to any
 * other token. Every other send* / copy / forward / edit method answers a Message.
 * A 403 rule answers as Telegram does (`Forbidden: bot was blocked by the user`, or its `description`);
 * `migrateTo` answers 400 `group chat was upgraded to a supergroup chat` with
 * `parameters.migrate_to_chat_id` (the chat moved).
 */
import { once } from 'node:events';
import { createServer, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BotApiCall {
  token: string;
  method: string;
  body: Record<string, unknown>;
  at: number;
}

/** An injected answer for matching calls (undefined fields match anything). */
export interface FakeRule {
  token?: string;
  method?: string;
  chat?: string;
  /** Bot API error code to answer (429, 500, 401, 403…); ignored with `hang`. */
  status?: number;
  retryAfter?: number;
  /** Answer 400 with `parameters.migrate_to_chat_id` = this id (a group upgraded to a supergroup). */
  migrateTo?: number;
  /** The error's description (default: Telegram's for 429 and 403, else `Injected failure`). */
  description?: string;
  /** Never answer (the connection stays open until the client gives up). */
  hang?: boolean;
  /** Matching calls it answers; undefined = every one until `clearRules()`. */
  times?: number;
}

export interface FakeBotApi {
  readonly url: string;
  readonly calls: BotApiCall[];
  rule(r: FakeRule): void;
  clearRules(): void;
  acceptTokens(tokens: string[] | undefined): void;
  webhook: Record<string, unknown>;
  webhookInfo: Record<string, unknown>;
  /** getChatMemberCount's answer per chat id; `memberCount` for any other chat. */
  memberCounts: Record<string, number>;
  memberCount: number;
  failWith(status: number | undefined, retryAfter?: number): void;
  waitFor(pred: (c: BotApiCall) => boolean, timeoutMs?: number): Promise<BotApiCall>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  if ((req.headers['content-type'] ?? '').includes('json'))
    return JSON.parse(text) as Record<string, unknown>;
  return Object.fromEntries(new URLSearchParams(text));
}

export async function startFakeBotApi(): Promise<FakeBotApi> {
  let fail: { status: number; retryAfter?: number } | undefined;
  let messageId = 1000;
  let rules: FakeRule[] = [];
  let accepted: Set<string> | undefined;
  const hanging = new Set<import('node:http').ServerResponse>();
  const api: Omit<FakeBotApi, 'url' | 'close'> & { failWith: FakeBotApi['failWith'] } = {
    calls: [],
    webhook: {},
    webhookInfo: { pending_update_count: 0 },
    memberCounts: {},
    memberCount: 1,
    rule(r) {
      rules.push({ ...r });
    },
    clearRules() {
      rules = [];
    },
    acceptTokens(tokens) {
      accepted = tokens && new Set(tokens);
    },
    failWith(status, retryAfter) {
      fail = status === undefined ? undefined : { status, retryAfter };
    },
    async waitFor(pred, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const hit = api.calls.find(pred);
        if (hit) return hit;
        if (Date.now() > until) throw new Error(`no matching Bot API call in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
  const server = createServer((req, res) => {
    void (async () => {
      const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? '');
      const body: Record<string, unknown> = await readBody(req).catch(() => ({}));
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (!m) return send(404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, token, method] = m;
      api.calls.push({ token: token!, method: method!, body, at: Date.now() });
      const chat = body.chat_id === undefined ? undefined : String(body.chat_id);
      if (accepted && !accepted.has(token!))
        return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const hit = rules.find(
        (r) =>
          (r.token === undefined || r.token === token) &&
          (r.method === undefined || r.method === method) &&
          (r.chat === undefined || r.chat === chat) &&
          (r.times === undefined || r.times > 0),
      );
      if (hit) {
        if (hit.times !== undefined) hit.times -= 1;
        if (hit.hang) {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        const status = hit.migrateTo !== undefined ? 400 : (hit.status ?? 500);
        return send(status, {
          ok: false,
          error_code: status,
          description:
            hit.description ??
            (status === 429
              ? `Too Many Requests: retry after ${hit.retryAfter ?? 1}`
              : status === 403
                ? 'Forbidden: bot was blocked by the user'
                : hit.migrateTo !== undefined
                  ? 'Bad Request: group chat was upgraded to a supergroup chat'
                  : 'Injected failure'),
          parameters:
            hit.migrateTo !== undefined
              ? { migrate_to_chat_id: hit.migrateTo }
              : hit.retryAfter !== undefined
                ? { retry_after: hit.retryAfter }
                : undefined,
        });
      }
      if (fail) {
        const parameters =
          fail.retryAfter !== undefined ? { retry_after: fail.retryAfter } : undefined;
        return send(fail.status, {
          ok: false,
          error_code: fail.status,
          description: 'Injected failure',
          parameters,
        });
      }
      switch (method) {
        case 'sendMessage':
          return send(200, {
            ok: true,
            result: {
              message_id: ++messageId,
              date: Math.floor(Date.now() / 1000),
              chat: { id: Number(body.chat_id), type: 'private' },
              text: body.text,
            },
          });
        case 'setWebhook':
          api.webhook = { ...body };
          return send(200, { ok: true, result: true, description: 'Webhook was set' });
        case 'getWebhookInfo':
          return send(200, {
            ok: true,
            result: {
              url: api.webhook.url ?? '',
              has_custom_certificate: false,
              ...api.webhookInfo,
            },
          });
        case 'getChatMemberCount':
          return send(200, { ok: true, result: api.memberCounts[chat ?? ''] ?? api.memberCount });
        case 'getMe':
          return send(200, {
            ok: true,
            result: {
              id: Number(token!.split(':')[0]),
              is_bot: true,
              first_name: 'Fake',
              username: 'fake_bot',
            },
          });
        default:
          if (/^(send|copy|forward|edit)/.test(method!))
            return send(200, {
              ok: true,
              result: {
                message_id: ++messageId,
                date: Math.floor(Date.now() / 1000),
                chat: { id: Number(chat), type: Number(chat) < 0 ? 'supergroup' : 'private' },
              },
            });
          return send(200, { ok: true, result: true });
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(api, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

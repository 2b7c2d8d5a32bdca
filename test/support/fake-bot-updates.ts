/**
 * A fake Telegram Bot API serving `getUpdates` as strictly as Telegram: a
 * real `node:http` server on loopback, `POST|GET /bot<token>/getUpdates`.
 *
 *   const api = await startFakeBotUpdates([token]);
 *   // CONFIG_FILE telegram.apiRoot: api.url
 *   api.push({ update_id: 1, message: … });   // queued for the bot
 *   api.served    // every update_id handed out, in order (repeats kept)
 *   api.conflicts // getUpdates calls Telegram would have ended with 409 (two pollers at once)
 *
 * Semantics (core.telegram.org/bots/api#getupdates): `offset` confirms every
 * update below it (they are never returned again); the answer holds up to
 * `limit` (1–100, default 100) updates from `offset` on, oldest first; with
 * none and `timeout` > 0 (an integer of seconds) the call waits for one until
 * the timeout. A second getUpdates for the same token while one is open ends
 * the older one with 409 "Conflict: terminated by other getUpdates request".
 * A bad token: 401. A bad parameter: 400. Any other method: `{ok: true, result: true}`.
 */
import { once } from 'node:events';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeBotUpdates {
  readonly url: string;
  readonly served: number[];
  readonly conflicts: number;
  /** Every getUpdates call: its offset (undefined: none) and how many updates it got. */
  readonly polls: { offset?: number; got: number }[];
  push(update: { update_id: number } & Record<string, unknown>): void;
  /** Updates not yet confirmed by an offset. */
  pending(): number;
  close(): Promise<void>;
}

type Update = { update_id: number } & Record<string, unknown>;

async function params(req: IncomingMessage): Promise<Record<string, unknown>> {
  const q = Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams) as Record<
    string,
    unknown
  >;
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return q;
  if ((req.headers['content-type'] ?? '').includes('application/json'))
    return { ...q, ...(JSON.parse(text) as Record<string, unknown>) };
  return { ...q, ...Object.fromEntries(new URLSearchParams(text)) };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const int = (v: unknown): number | undefined =>
  v === undefined ? undefined : Number.isInteger(Number(v)) ? Number(v) : NaN;

export async function startFakeBotUpdates(tokens: string[]): Promise<FakeBotUpdates> {
  let queue: Update[] = [];
  let conflicts = 0;
  const served: number[] = [];
  const polls: { offset?: number; got: number }[] = [];
  /** The open long poll per token, ended when another call for the same token comes. */
  const open = new Map<string, { res: ServerResponse; wake: () => void }>();

  const server = createServer((req, res) => {
    void (async () => {
      const m = /^\/bot([^/]+)\/([A-Za-z]+)/.exec(new URL(req.url ?? '/', 'http://x').pathname);
      if (!m) return send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, token, method] = m as unknown as [string, string, string];
      if (!tokens.includes(token))
        return send(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const p = await params(req);
      if (method !== 'getUpdates') return send(res, 200, { ok: true, result: true });
      const offset = int(p.offset);
      const limit = int(p.limit) ?? 100;
      const timeout = int(p.timeout) ?? 0;
      if (Number.isNaN(offset) || Number.isNaN(limit) || Number.isNaN(timeout) || timeout < 0)
        return send(res, 400, { ok: false, error_code: 400, description: 'Bad Request' });
      const older = open.get(token);
      if (older) {
        conflicts += 1;
        send(older.res, 409, {
          ok: false,
          error_code: 409,
          description:
            'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
        });
        older.wake();
      }
      // `offset` confirms every update below it: gone for good.
      if (offset !== undefined && offset > 0) queue = queue.filter((u) => u.update_id >= offset);
      const take = () => queue.slice(0, Math.max(1, Math.min(100, limit)));
      let got = take();
      if (got.length === 0 && timeout > 0) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, timeout * 1000);
          const wake = () => {
            clearTimeout(t);
            resolve();
          };
          open.set(token, { res, wake });
          res.once('close', wake);
        });
        if (open.get(token)?.res === res) open.delete(token);
        if (res.writableEnded || res.destroyed) return;
        got = take();
      }
      polls.push({ offset, got: got.length });
      for (const u of got) served.push(u.update_id);
      send(res, 200, { ok: true, result: got });
    })().catch(() => send(res, 500, { ok: false, error_code: 500, description: 'fake failed' }));
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    polls,
    get conflicts() {
      return conflicts;
    },
    push(u) {
      queue.push(u);
      queue.sort((a, b) => a.update_id - b.update_id);
      for (const o of [...open.values()]) o.wake();
    },
    pending: () => queue.length,
    close: () =>
      new Promise<void>((r) => {
        for (const o of open.values()) o.wake();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

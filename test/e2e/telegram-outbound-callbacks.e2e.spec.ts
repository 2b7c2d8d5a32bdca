/**
 * Completion events over HTTP: a job sent or dead is POSTed, signed with the
 * app's callback secret, to a real receiver on loopback (allowed by
 * `allowHosts`), retried after a failed try; another app's jobs are not.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { addSecret } from '../support/secret-scan.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const SECRET = 'callback-secret-for-tests-0123456789';
const BOT = { id: 'a', scope: 'news', token: token(1, 'C') };

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A receiver that answers 500 to the first `failFirst` posts, then 204. */
async function receiver(failFirst: number) {
  const got: Received[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(++n <= failFirst ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  return { got, url, close: () => new Promise((r) => server.close(r)) };
}

function verified(r: Received): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['rampart-signature']));
  if (!m) return false;
  const want = createHmac('sha256', SECRET).update(`${m[1]}.${r.body}`).digest();
  return timingSafeEqual(want, Buffer.from(m[2]!, 'hex'));
}

const RUNS: [HttpAdapterName, string, () => Record<string, string>][] = [
  ['fastify', 'redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgc') })],
  ['express', 'memory', () => ({})],
];

describe.each(RUNS)('completion events (%s, %s store)', (adapter, store, env) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;
  let other: Notify;
  let rx: Awaited<ReturnType<typeof receiver>>;

  beforeAll(async () => {
    if (store === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    rx = await receiver(1);
    addSecret(SECRET, 'the callback secret');
    process.env.RAMPART_TEST_CALLBACK_SECRET = SECRET;
    const s = outboundSetup([BOT], api.url, {
      callbacks: {
        allowHosts: ['127.0.0.1'],
        backoffBaseMs: 20,
        maxAttempts: 4,
        apps: { 'app-e2e': { url: rx.url, secretEnv: 'RAMPART_TEST_CALLBACK_SECRET' } },
      },
    });
    app = await startApp({ ...s.env, ...env(), HTTP_ADAPTER: adapter });
    notify = new Notify(app.url, s.app);
    other = new Notify(app.url, s.other);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
    await rx?.close();
  });

  it('should POST a signed event when a job is delivered and when it is dead, retrying a failed try', async () => {
    if (!app) return;
    api.rule({ token: BOT.token, chat: '402', status: 400 });
    const [ok, bad] = [notice(401, 'news'), notice(402, 'news')];
    const foreign = notice(403, 'news');
    await notify.post({ jobs: [ok, bad] });
    await other.post({ jobs: [foreign] });
    await notify.settled([ok.job_id, bad.job_id]);
    await other.settled([foreign.job_id]);
    const events = async () => {
      for (let i = 0; i < 400; i++) {
        const ids = rx.got.map((r) => (JSON.parse(r.body) as { job_id: string }).job_id);
        if (
          ids.filter((x) => x === ok.job_id || x === bad.job_id).length >= 2 &&
          rx.got.length >= 3
        )
          return;
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await events();
    expect(rx.got.every(verified)).toBe(true);
    const bodies = rx.got.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    // The first try was refused (500) and tried again: one event came twice, every event came.
    expect(rx.got.length).toBe(3);
    expect(bodies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'notification.delivered',
          job_id: ok.job_id,
          state: 'sent',
          bot: 'a',
          message_id: expect.any(Number),
        }),
        expect.objectContaining({
          type: 'notification.dead',
          job_id: bad.job_id,
          state: 'dead',
          reason: 'rejected',
        }),
      ]),
    );
    // The other app has no callback: nothing of its job reaches this app's receiver.
    expect(bodies.some((b) => b.job_id === foreign.job_id)).toBe(false);
    expect(rx.got.some((r) => r.body.includes(BOT.token))).toBe(false);
  });
});

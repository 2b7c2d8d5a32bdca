/**
 * Reaching a chat (issue 30), through HTTP against the fake Bot API on loopback, on both adapters and
 * stores: a 403 sends the job through another bot of its scope (never twice), all bots 403 → dead
 * `forbidden`; a `my_chat_member` update (or `/start`) at the bot's own webhook clears its mark and a
 * replay delivers, while one at another app's bot clears nothing; a group upgraded to a supergroup (400
 * `migrate_to_chat_id`) moves the job and the chat's later jobs to the new id, per app; jobs posted once
 * the move is known, under either id, run in the new id's lane in posting order.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import {
  Notify,
  SLOW_MACHINE,
  notice,
  outboundSetup,
  ready,
  token,
} from '../support/telegram-outbound.js';

const A = { id: 'a', scope: 'reach', token: token(1, 'R'), apps: ['app-e2e'] };
const B = { id: 'b', scope: 'reach', token: token(2, 'R'), apps: ['app-e2e'] };
// The hostile tenant's own bot.
const H = { id: 'h', scope: 'hostile', token: token(3, 'R'), apps: ['app-debug'] };

const w = (bot: string, chat: number) =>
  createHash('sha1').update(`${bot}|${chat}`).digest().readUInt32BE(0);
/** Group ids (from -860 down) that rendezvous hashing would give to bot `c` before `a` and `b`. */
const cFirst = (n: number) => {
  const out: number[] = [];
  for (let c = -860; out.length < n; c--)
    if (w('c', c) > Math.max(w('a', c), w('b', c))) out.push(c);
  return out;
};
const [LISTED, UNLISTED] = cFirst(2) as [number, number];
// Declares its one group: eligible for that chat only (telegram.bots[].outbound.chats).
const C = {
  id: 'c',
  scope: 'reach',
  token: token(4, 'R'),
  apps: ['app-e2e'],
  outbound: { chats: [LISTED] },
};

const RUNS: [HttpAdapterName, string, () => Record<string, string>][] = [
  ['express', 'memory', () => ({})],
  ['fastify', 'redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgr') })],
];

/** A chat (from `from` up) that rendezvous hashing gives to bot `a` before bot `b` (bot-routing.ts). */
function chatOfA(from: number): number {
  for (let c = from; ; c++) if (w('a', c) > w('b', c)) return c;
}

let updateId = 5_000;
function memberUpdate(chat: number, status: string) {
  const user = { id: chat, is_bot: false, first_name: 'U' };
  const bot = { id: 7, is_bot: true, first_name: 'Bot' };
  return {
    update_id: ++updateId,
    my_chat_member: {
      chat: { id: chat, type: 'private', first_name: 'U' },
      from: user,
      date: Math.floor(Date.now() / 1000),
      old_chat_member: { user: bot, status: status === 'member' ? 'kicked' : 'member' },
      new_chat_member: { user: bot, status },
    },
  };
}

describe.each(RUNS)('telegram outbound reach (%s, %s store)', (adapter, store, env) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;
  let hostile: Notify;
  let admin: AdminClient;

  beforeAll(async () => {
    if (store === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    // Every send here must be delivered: a loaded machine's slow call must not turn ambiguous (dead).
    const s = outboundSetup([A, B, C, H], api.url, { maxAttempts: 3, ...SLOW_MACHINE });
    app = await startApp({ ...s.env, ...env(), HTTP_ADAPTER: adapter, ADMIN_TOKEN });
    notify = new Notify(app.url, s.app);
    hostile = new Notify(app.url, s.other);
    await ready(notify);
    admin = new AdminClient(app);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  const sends = (tok: string, chat: number | string) =>
    api.calls.filter((c) => c.token === tok && c.body.chat_id === String(chat)).length;
  const webhook = (bot: string, update: unknown) =>
    fetch(`${app.url}/telegram/${bot}/outbound-path-secret-0123`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': 'outbound_secret_1',
      },
      body: JSON.stringify(update),
    });
  const replay = async (id: string, appId = 'app-e2e') => {
    const r = await admin.call<{ replayed: string[] }>('POST', '/admin/telegram/dead/replay', {
      job_ids: [`${appId}/${id}`],
    });
    expect(r.body.replayed).toEqual([`${appId}/${id}`]);
  };

  it('should send a job that bot a got a 403 for through bot b, once', async () => {
    if (!app) return;
    const chat = chatOfA(810);
    api.rule({ token: A.token, chat: String(chat), status: 403 });
    const job = notice(chat, 'reach');
    expect((await notify.post([job])).status).toBe(202);
    const [view] = await notify.settled([job.job_id], ['sent', 'dead']);
    expect(view).toMatchObject({ state: 'sent', bot: 'b' });
    expect([sends(A.token, chat), sends(B.token, chat)]).toEqual([1, 1]);
    // The chat's next job goes straight to b: a's mark is known.
    const next = notice(chat, 'reach');
    expect((await notify.post([next])).status).toBe(202);
    expect((await notify.settled([next.job_id], ['sent', 'dead']))[0]).toMatchObject({ bot: 'b' });
    expect([sends(A.token, chat), sends(B.token, chat)]).toEqual([1, 2]);
  });

  it('should dead-letter forbidden when every bot 403s, and deliver the replay once its bot is back', async () => {
    if (!app) return;
    const chat = 820;
    api.rule({ chat: String(chat), status: 403, times: 2 });
    const job = notice(chat, 'reach');
    expect((await notify.post([job])).status).toBe(202);
    expect((await notify.settled([job.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'dead',
      reason: 'forbidden',
    });
    expect([sends(A.token, chat), sends(B.token, chat)]).toEqual([1, 1]);
    // Still blocked: a replay is dead again without a call.
    await replay(job.job_id);
    await notify.settled([job.job_id], ['dead']);
    expect([sends(A.token, chat), sends(B.token, chat)]).toEqual([1, 1]);
    // The other tenant's bot seen back in that chat (its own webhook) clears nothing of a's or b's.
    expect((await webhook('h', memberUpdate(chat, 'member'))).status).toBe(200);
    await replay(job.job_id);
    await notify.settled([job.job_id], ['dead']);
    expect([sends(A.token, chat), sends(B.token, chat)]).toEqual([1, 1]);
    // The user unblocks bot b: Telegram's my_chat_member at b's webhook clears b's mark.
    expect((await webhook('b', memberUpdate(chat, 'member'))).status).toBe(200);
    await replay(job.job_id);
    expect((await notify.settled([job.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'sent',
      bot: 'b',
    });
    expect(sends(B.token, chat)).toBe(2);
  });

  it('should clear the mark on a user’s new /start to the bot, and mark it on kicked', async () => {
    if (!app) return;
    const chat = chatOfA(830);
    // Learnt at ingress: a kicked my_chat_member marks a (no 403 needed); b takes the job.
    expect((await webhook('a', memberUpdate(chat, 'kicked'))).status).toBe(200);
    const job = notice(chat, 'reach');
    expect((await notify.post([job])).status).toBe(202);
    expect((await notify.settled([job.job_id], ['sent', 'dead']))[0]).toMatchObject({ bot: 'b' });
    expect(sends(A.token, chat)).toBe(0);
    const start = {
      update_id: ++updateId,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chat, type: 'private', first_name: 'U' },
        from: { id: chat, is_bot: false, first_name: 'U' },
        text: '/start',
      },
    };
    expect((await webhook('a', start)).status).toBe(200);
    const next = notice(chat, 'reach');
    expect((await notify.post([next])).status).toBe(202);
    expect((await notify.settled([next.job_id], ['sent', 'dead']))[0]).toMatchObject({ bot: 'a' });
  });

  it('should route a group to a bot that declares its chats only if it lists that group', async () => {
    if (!app) return;
    const jobs = [notice(LISTED, 'reach'), notice(UNLISTED, 'reach')];
    expect((await notify.post(jobs)).status).toBe(202);
    const [listed, unlisted] = await notify.settled(jobs.map((j) => j.job_id));
    expect(listed).toMatchObject({ state: 'sent', bot: 'c' });
    expect(unlisted).toMatchObject({ state: 'sent' });
    expect(unlisted!.bot).not.toBe('c');
    expect(sends(C.token, UNLISTED)).toBe(0);
  });

  it('should keep a hostile app’s jobs on its own bots: its 403 is dead, never routed through a or b', async () => {
    if (!app) return;
    const chat = 840;
    api.rule({ token: H.token, chat: String(chat), status: 403 });
    const job = notice(chat, 'hostile');
    expect((await hostile.post([job])).status).toBe(202);
    expect((await hostile.settled([job.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'dead',
      reason: 'forbidden',
    });
    expect([sends(H.token, chat), sends(A.token, chat), sends(B.token, chat)]).toEqual([1, 0, 0]);
  });

  it('should move a migrated group’s job and its later jobs to the new id, per app, with no dead letter', async () => {
    if (!app) return;
    const [old, moved] = [-850, -100850];
    api.rule({ chat: String(old), migrateTo: moved });
    const first = notice(old, 'reach');
    expect((await notify.post([first])).status).toBe(202);
    expect((await notify.settled([first.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'sent',
    });
    const oldCalls = () => api.calls.filter((c) => c.body.chat_id === String(old)).length;
    const newCalls = () => api.calls.filter((c) => c.body.chat_id === String(moved)).length;
    expect([oldCalls(), newCalls()]).toEqual([1, 1]);
    const later = notice(old, 'reach');
    expect((await notify.post([later])).status).toBe(202);
    expect((await notify.settled([later.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'sent',
    });
    expect([oldCalls(), newCalls()]).toEqual([1, 2]);
    // Another app learns nothing of it: its job to the old id gets its own 400 first, then moves.
    const theirs = notice(old, 'hostile');
    expect((await hostile.post([theirs])).status).toBe(202);
    expect((await hostile.settled([theirs.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'sent',
      bot: 'h',
    });
    expect([oldCalls(), newCalls()]).toEqual([2, 3]);
    const dead = await admin.call<{ jobs: { job_id: string }[] }>('GET', '/admin/telegram/dead');
    const ids = new Set(dead.body.jobs.map((j) => j.job_id));
    expect([first, later, theirs].filter((j) => ids.has(j.job_id))).toEqual([]);
  });

  it('should send a moved chat’s jobs posted under its old and its new id in one lane, in posting order', async () => {
    if (!app) return;
    const [old, moved] = [-845, -100845];
    api.rule({ chat: String(old), migrateTo: moved });
    const first = notice(old, 'reach');
    expect((await notify.post([first])).status).toBe(202);
    expect((await notify.settled([first.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'sent',
    });
    // Posted once the move is known: the first waits for its not_before; the two after it (one under
    // each id) wait behind it, in the lane of the new id.
    const jobs = [
      notice(old, 'reach', { not_before: Date.now() + 1_500 }),
      notice(moved, 'reach'),
      notice(old, 'reach'),
    ];
    expect((await notify.post(jobs)).status).toBe(202);
    const views = await notify.settled(jobs.map((j) => j.job_id));
    const to = (chat: number) => api.calls.filter((c) => c.body.chat_id === String(chat));
    expect(to(moved).map((c) => c.body.text)).toEqual([first, ...jobs].map((j) => j.job_id));
    expect(views.map((v) => [v.state, v.chat_id])).toEqual(jobs.map(() => ['sent', String(moved)]));
    expect(to(old).length).toBe(1);
  });
});

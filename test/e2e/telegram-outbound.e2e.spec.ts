/**
 * The outbound sender through HTTP, against a fake Bot API on loopback, on
 * the embedded (memory) queue and on a real Redis: validation (all or none),
 * idempotency, 429 as a scheduling order, per-chat order across retries,
 * collapse, sticky routing within a scope.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const BOTS = [
  { id: 'a', scope: 'news', token: token(1) },
  { id: 'b', scope: 'news', token: token(2) },
  { id: 'c', scope: 'ops', token: token(3) },
];

const STORES: [string, () => Record<string, string>][] = [
  ['memory', () => ({})],
  ['redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgo') })],
];

const textsTo = (api: FakeBotApi, chat: number, tok?: string) =>
  api.calls
    .filter((c) => String(c.body.chat_id) === String(chat) && (!tok || c.token === tok))
    .map((c) => c.body.text);

describe.each(STORES)('telegram outbound (%s store)', (name, storeEnv) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;

  beforeAll(async () => {
    if (name === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    const s = outboundSetup(BOTS, api.url);
    app = await startApp({ ...s.env, ...storeEnv() });
    notify = new Notify(app.url, s.app);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });
  afterEach(() => api?.clearRules());

  it('should refuse a batch with any invalid job, naming each problem, and queue none of it', async () => {
    if (!app) return;
    const ok = notice(11, 'news');
    const res = await notify.post({
      jobs: [
        ok,
        { ...notice(12, 'news'), chat_id: '@someone', method: 'sendBogus', bot_scope: 'nope' },
      ],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; problems: string[] };
    expect(body.error).toBe('invalid_notifications');
    expect(body.problems.join('\n')).toMatch(/jobs\[1\]\.chat_id/);
    expect(body.problems.join('\n')).toMatch(/jobs\[1\]\.method/);
    expect(body.problems.join('\n')).toMatch(/jobs\[1\]\.bot_scope/);
    expect((await notify.get(ok.job_id)).status).toBe(404);
    expect((await notify.post([notice(13, 'news')], false)).status).toBe(401);
  });

  it('should send a job once, report its message_id, and take a repeated job_id as a duplicate', async () => {
    if (!app) return;
    const j = notice(21, 'news');
    const res = await notify.post(j);
    expect(res.status, await res.clone().text()).toBe(202);
    expect(await res.json()).toEqual({ jobs: [{ job_id: j.job_id, status: 'queued' }] });
    const [view] = await notify.settled([j.job_id]);
    expect(view).toMatchObject({ state: 'sent', attempts: 0, chat_id: '21' });
    expect(typeof view!.message_id).toBe('number');
    const again = await notify.post({ ...j, payload: { text: 'changed' } });
    expect(await again.json()).toEqual({ jobs: [{ job_id: j.job_id, status: 'duplicate' }] });
    await new Promise((r) => setTimeout(r, 100));
    expect(textsTo(api, 21)).toEqual([j.job_id]);
  });

  it('should take 429 retry_after as a cooldown of the bot: nothing sent inside it, order kept, no attempt counted', async () => {
    if (!app) return;
    api.rule({ token: token(3), status: 429, retryAfter: 1, times: 1 });
    const first = notice(31, 'ops');
    await notify.post(first);
    const refused = await api.waitFor((c) => c.body.text === first.job_id);
    // The cooldown is set when the 429 comes back; every job queued after that waits it out.
    await new Promise((r) => setTimeout(r, 100));
    const later = [notice(31, 'ops'), notice(32, 'ops'), notice(33, 'ops'), notice(31, 'ops')];
    expect((await notify.post(later)).status).toBe(202);
    const views = await notify.settled([first, ...later].map((j) => j.job_id));
    expect(views.map((v) => [v.state, v.attempts])).toEqual(Array(5).fill(['sent', 0]));
    const after = api.calls.filter((c) => c.token === token(3) && c.at > refused.at);
    expect(after.length).toBe(5);
    expect(after.every((c) => c.at >= refused.at + 1_000)).toBe(true);
    expect(textsTo(api, 31)).toEqual([first, first, later[0], later[3]].map((j) => j!.job_id));
  });

  it("should keep a chat's order across 5xx retries and count the attempts", async () => {
    if (!app) return;
    api.rule({ chat: '41', status: 502, times: 2 });
    const jobs = Array.from({ length: 5 }, () => notice(41, 'news'));
    await notify.post(jobs);
    const views = await notify.settled(jobs.map((j) => j.job_id));
    expect(views.map((v) => v.state)).toEqual(Array(5).fill('sent'));
    expect(views[0]!.attempts).toBe(2);
    const delivered = api.calls
      .filter((c) => c.body.chat_id === '41')
      .slice(2)
      .map((c) => c.body.text);
    expect(delivered).toEqual(jobs.map((j) => j.job_id));
  });

  it('should replace a waiting job by a newer one with the same collapse_key, sending only the newer', async () => {
    if (!app) return;
    const old = notice(51, 'news', { collapse_key: 'status', not_before: Date.now() + 400 });
    const newer = notice(51, 'news', { collapse_key: 'status' });
    await notify.post(old);
    expect(await (await notify.post(newer)).json()).toEqual({
      jobs: [{ job_id: newer.job_id, status: 'replaced' }],
    });
    const [o, nw] = await notify.settled([old.job_id, newer.job_id]);
    expect(o).toMatchObject({ state: 'collapsed', collapsed_by: newer.job_id });
    expect(nw).toMatchObject({ state: 'sent' });
    expect(textsTo(api, 51)).toEqual([newer.job_id]);
  });

  it('should send each chat through one bot of its scope, and use both bots across chats', async () => {
    if (!app) return;
    const chats = Array.from({ length: 12 }, (_, i) => 600 + i);
    const jobs = chats.flatMap((c) => [notice(c, 'news'), notice(c, 'news')]);
    await notify.post(jobs);
    await notify.settled(jobs.map((j) => j.job_id));
    const byChat = chats.map(
      (c) => new Set(api.calls.filter((x) => x.body.chat_id === String(c)).map((x) => x.token)),
    );
    expect(byChat.every((s) => s.size === 1)).toBe(true);
    const used = new Set(byChat.flatMap((s) => [...s]));
    expect(used).toEqual(new Set([token(1), token(2)]));
  });
});

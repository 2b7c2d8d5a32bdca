/**
 * Lifting a bot's cooldown early through the admin API frees the jobs waiting for it, on the embedded
 * (memory) queue and on a real Redis: a 429 with a retry_after of an hour parks them, and only the lift can
 * deliver them within the test (the fake Bot API says what it received).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const BOTS = [{ id: 'lift', scope: 'alerts', token: token(7, 'L') }];

const STORES: [string, () => Record<string, string>][] = [
  ['memory', () => ({})],
  ['redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tglift') })],
];

describe.each(STORES)('lifting a cooldown early (%s store)', (name, storeEnv) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;
  let admin: AdminClient;

  beforeAll(async () => {
    if (name === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    const s = outboundSetup(BOTS, api.url);
    app = await startApp({ ...s.env, ...storeEnv(), ADMIN_TOKEN });
    notify = new Notify(app.url, s.app);
    admin = new AdminClient(app);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should send the waiting jobs right after the lift, not at the old end', async () => {
    if (!app) return;
    api.rule({ token: BOTS[0]!.token, status: 429, retryAfter: 3_600, times: 1 });
    const first = notice(51, 'alerts');
    await notify.post(first);
    await api.waitFor((c) => c.body.text === first.job_id);
    const later = [notice(51, 'alerts'), notice(52, 'alerts')];
    expect((await notify.post(later)).status).toBe(202);
    // Chat 51's head waits for the hour-long cooldown (its second job queues behind it); chat 52's job is
    // not even claimed (the worker knows its only bot cools down).
    await eventually(
      async () => [
        (await notify.get(first.job_id)).body,
        (await notify.get(later[1]!.job_id)).body,
      ],
      (v) => v[0]!.state === 'waiting' && v[1]!.state === 'queued',
      5_000,
    );
    const bot = await admin.get<{ bots: { id: string; state: string }[] }>('/admin/telegram/bots');
    expect(bot.body.bots.find((b) => b.id === 'lift')?.state).toBe('cooldown');

    const lifted = await admin.call('PUT', '/admin/telegram/bots/lift/state', { state: 'active' });
    expect(lifted.status).toBe(200);
    const views = await notify.settled(
      [first, ...later].map((j) => j.job_id),
      ['sent'],
      10_000,
    );
    expect(views.map((v) => v.state)).toEqual(['sent', 'sent', 'sent']);
    const texts = api.calls.filter((c) => c.token === BOTS[0]!.token).map((c) => c.body.text);
    // The refused first try, then each job once; chat 51 in order.
    expect(texts.filter((t) => t === first.job_id)).toHaveLength(2);
    expect(texts.indexOf(later[0]!.job_id)).toBeGreaterThan(texts.lastIndexOf(first.job_id));
    expect(texts).toContain(later[1]!.job_id);
  });
});

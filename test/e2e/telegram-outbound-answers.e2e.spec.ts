/**
 * What two answers of the Bot API mean for a job, on both stores: a 400 is the
 * request's fault (dead `rejected` after one call, never retried, and the chat
 * stays reachable), and a hang past the request timeout is ambiguous — dead by
 * default (the dead-letters test), sent again under `ambiguous: retry`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const BOTS = [{ id: 'a', scope: 'answers', token: token(6, 'Q') }];

const STORES: [string, () => Record<string, string>][] = [
  ['memory', () => ({})],
  ['redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tga') })],
];

describe.each(STORES)('telegram outbound answers (%s store)', (name, storeEnv) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;

  beforeAll(async () => {
    if (name === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    // A request timeout short enough for the hang to turn ambiguous soon, long enough for a loaded
    // machine's ordinary calls; `retry` sends the hung job again.
    const s = outboundSetup(BOTS, api.url, {
      ambiguous: 'retry',
      maxAttempts: 4,
      requestTimeoutMs: 3_000,
      leaseMs: 6_000,
    });
    app = await startApp({ ...s.env, ...storeEnv() });
    notify = new Notify(app.url, s.app);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  const callsTo = (chat: string) => api.calls.filter((c) => c.body.chat_id === chat).length;

  it('should dead-letter a 400 as rejected after one call, and keep sending to that chat', async () => {
    if (!app) return;
    api.rule({ chat: '901', status: 400, times: 1 });
    const bad = notice(901, 'answers');
    expect((await notify.post([bad])).status).toBe(202);
    const [view] = await notify.settled([bad.job_id], ['dead']);
    expect(view).toMatchObject({ state: 'dead', reason: 'rejected', attempts: 0 });
    expect(callsTo('901')).toBe(1);
    // Not a 403: the chat is not marked unreachable, the next job to it is sent.
    const next = notice(901, 'answers');
    expect((await notify.post([next])).status).toBe(202);
    expect((await notify.settled([next.job_id], ['sent', 'dead']))[0]).toMatchObject({
      state: 'sent',
    });
    expect(callsTo('901')).toBe(2);
  });

  it('should send an ambiguous (timed-out) job again under ambiguous: retry', async () => {
    if (!app) return;
    api.rule({ chat: '902', hang: true, times: 1 });
    const job = notice(902, 'answers');
    expect((await notify.post([job])).status).toBe(202);
    const [view] = await notify.settled([job.job_id], ['sent', 'dead'], 30_000);
    expect(view).toMatchObject({ state: 'sent', attempts: 1 });
    expect(callsTo('902')).toBe(2);
  });
});

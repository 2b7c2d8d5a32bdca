/**
 * `DELETE /v1/notifications/<id>` over HTTP, against the fake Bot API on
 * loopback: a queued job is cancelled and never sent; a sent one is not
 * (409); another app's job is unknown (404) and stays queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const RUNS: [HttpAdapterName, string, () => Record<string, string>][] = [
  ['express', 'redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgx') })],
  ['fastify', 'memory', () => ({})],
];

describe.each(RUNS)('cancel a notification (%s, %s store)', (adapter, store, env) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;
  let other: Notify;

  beforeAll(async () => {
    if (store === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    const s = outboundSetup([{ id: 'a', scope: 'news', token: token(1, 'X') }], api.url);
    app = await startApp({ ...s.env, ...env(), HTTP_ADAPTER: adapter });
    notify = new Notify(app.url, s.app);
    other = new Notify(app.url, s.other);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should cancel a queued job of its own app only, and never send it', async () => {
    if (!app) return;
    const later = Date.now() + 3_600_000;
    const [mine, kept] = [
      notice(301, 'news', { not_before: later }),
      notice(302, 'news', { not_before: later }),
    ];
    expect((await notify.post({ jobs: [mine, kept] })).status).toBe(202);
    // Another app names the same ids: unknown to it, and nothing changes.
    const foreign = await other.cancel(kept.job_id);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('unknown_job');
    expect((await notify.get(kept.job_id)).body.state).toBe('queued');

    expect(await notify.cancel(mine.job_id)).toEqual({
      status: 200,
      body: { job_id: mine.job_id, status: 'cancelled' },
    });
    expect((await notify.get(mine.job_id)).body).toMatchObject({ state: 'cancelled' });
    const again = await notify.cancel(mine.job_id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'job_not_cancellable', state: 'cancelled' });
    expect((await notify.cancel('never-queued')).status).toBe(404);
    // A job of the same chat sent afterwards is not held back by the cancelled one.
    const now = notice(301, 'news');
    await notify.post({ jobs: [now] });
    const [sent] = await notify.settled([now.job_id]);
    expect(sent!.state).toBe('sent');
    const late = await notify.cancel(now.job_id);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: 'job_not_cancellable', state: 'sent' });
    expect(api.calls.map((c) => c.body.text)).not.toContain(mine.payload.text);
  });
});

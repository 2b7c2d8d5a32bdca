/**
 * Bots' own outbound settings, through HTTP against the fake Bot API on
 * loopback: a bot's `outbound.buckets` replace the global ones for its sends
 * only, and an outbound-only bot (mode outbound, no webhook settings) sends
 * but has no webhook: no path reaches it and /health/ready asks nothing of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READY_DETAIL } from '../support/admin-client.js';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const FAST_BOT = { id: 'fast', scope: 'fast', token: token(1, 'B') };
// Outbound-only, with its own bot bucket: 1 send a minute.
const SLOW_BOT = {
  id: 'slow',
  scope: 'slow',
  token: token(2, 'B'),
  mode: 'outbound' as const,
  outbound: { buckets: { bot: { rate: '1/min', burst: 1 } } },
};

const RUNS: [HttpAdapterName, string, () => Record<string, string>][] = [
  ['express', 'memory', () => ({})],
  ['fastify', 'redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgb') })],
];

describe.each(RUNS)('telegram bots outbound settings (%s, %s store)', (adapter, store, env) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;

  beforeAll(async () => {
    if (store === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    const s = outboundSetup([FAST_BOT, SLOW_BOT], api.url, {}, { webhookInfoPollMs: 200 });
    app = await startApp({ ...s.env, ...env(), HTTP_ADAPTER: adapter, ADMIN_TOKEN });
    notify = new Notify(app.url, s.app);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should pace a bot by its own buckets and the others by the global ones', async () => {
    if (!app) return;
    const fast = [notice(101, 'fast'), notice(102, 'fast'), notice(103, 'fast')];
    const slow = [notice(201, 'slow'), notice(202, 'slow')];
    expect((await notify.post({ jobs: [...fast, ...slow] })).status).toBe(202);
    // The global bot bucket (30/s, burst 3) lets all three through.
    const sent = await notify.settled(fast.map((j) => j.job_id));
    expect(sent.map((v) => v.state)).toEqual(['sent', 'sent', 'sent']);
    // The slow bot's own bucket (1/min) sends one (either: two chats, two lanes) and holds the other
    // for about a minute.
    let views: Record<string, unknown>[] = [];
    for (let i = 0; i < 400; i++) {
      views = await Promise.all(slow.map(async (j) => (await notify.get(j.job_id)).body));
      const waiting = views.find((v) => v.state === 'queued' && v.wait_until !== undefined);
      if (views.some((v) => v.state === 'sent') && waiting) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const sentOne = views.find((v) => v.state === 'sent');
    const held = views.find((v) => v !== sentOne)!;
    expect(sentOne).toMatchObject({ state: 'sent', bot: 'slow' });
    expect(held).toMatchObject({ state: 'queued', bot: 'slow' });
    expect(Date.parse(held.wait_until as string) - Date.now()).toBeGreaterThan(30_000);
    expect(
      api.calls.filter((c) => c.token === SLOW_BOT.token && c.method === 'sendMessage'),
    ).toHaveLength(1);
  });

  it('should give an outbound-only bot no webhook: refused like an unknown bot, not asked for in /health/ready', async () => {
    if (!app) return;
    const post = (bot: string, path: string) =>
      fetch(`${app.url}/telegram/${bot}/${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-telegram-bot-api-secret-token': 'outbound_secret_1',
        },
        body: JSON.stringify({ update_id: 1, message: { message_id: 1, text: 'hi' } }),
      });
    const unknown = await post('nobot', 'outbound-path-secret-0123');
    // A path of NUL: the constant-time compare of a bot without a path secret must not match it.
    for (const path of ['outbound-path-secret-0123', '%00', 'anything-at-all-000']) {
      const res = await post('slow', path);
      expect(res.status).toBe(unknown.status);
      expect(((await res.json()) as { error: string }).error).toBe(
        ((await unknown.clone().json()) as { error: string }).error,
      );
    }
    expect(unknown.status).toBe(401);
    // The builtin bot's webhook is polled; the outbound-only bot's token is never asked.
    let body: { info?: Record<string, { bots?: Record<string, Record<string, unknown>> }> } = {};
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${app.url}/health/ready`, READY_DETAIL);
      body = (await res.json()) as typeof body;
      if (api.calls.some((c) => c.method === 'getWebhookInfo') && body.info?.telegram?.bots?.fast)
        break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(body.info?.telegram?.bots?.slow).toMatchObject({ mode: 'outbound', webhook: 'none' });
    expect(
      api.calls.filter((c) => c.method === 'getWebhookInfo' && c.token === SLOW_BOT.token),
    ).toHaveLength(0);
    expect(api.calls.some((c) => c.method === 'getWebhookInfo' && c.token === FAST_BOT.token)).toBe(
      true,
    );
  });
});

/**
 * A chat that moves with jobs queued (issue 30), through HTTP against the fake Bot API on loopback, on both
 * adapters and stores: several jobs wait in the old id's lane when the first send is answered 400
 * `migrate_to_chat_id`; the move carries them into the new id's lane, so they and the jobs posted after the
 * move (under either id) are each sent once, to the new id, in posting order, and nothing more to the old id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
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

const A = { id: 'a', scope: 'move', token: token(1, 'M'), apps: ['app-e2e'] };

const RUNS: [HttpAdapterName, string, () => Record<string, string>][] = [
  ['express', 'memory', () => ({})],
  ['fastify', 'redis', () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgm') })],
];

describe.each(RUNS)('telegram outbound chat move (%s, %s store)', (adapter, store, env) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;

  beforeAll(async () => {
    if (store === 'redis' && !redisUrl()) return;
    api = await startFakeBotApi();
    // A group chat takes 4 sends a second: the old lane's jobs are still queued when later ones come.
    const buckets = { private: { rate: '50/s', burst: 1 }, group: { rate: '4/s', burst: 1 } };
    const s = outboundSetup([A], api.url, { maxAttempts: 3, buckets, ...SLOW_MACHINE });
    app = await startApp({ ...s.env, ...env(), HTTP_ADAPTER: adapter });
    notify = new Notify(app.url, s.app);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should carry the jobs queued for the old id into the new id’s lane, ahead of later jobs, in posting order', async () => {
    if (!app) return;
    const [old, moved] = [-870, -100870];
    api.rule({ chat: String(old), migrateTo: moved });
    const to = (chat: number) => api.calls.filter((c) => c.body.chat_id === String(chat));
    // All five are queued before any is due (not_before): none is sent before the move is known.
    const nb = Date.now() + 800;
    const queued = [0, 1, 2, 3, 4].map(() => notice(old, 'move', { not_before: nb }));
    expect((await notify.post(queued)).status).toBe(202);
    await api.waitFor((c) => c.body.chat_id === String(moved));
    expect(to(old).map((c) => c.body.text)).toEqual([queued[0]!.job_id]);
    // Posted once the move is known, under each id: behind the five.
    const later = [notice(old, 'move'), notice(moved, 'move')];
    expect((await notify.post(later)).status).toBe(202);
    const all = [...queued, ...later];
    const views = await notify.settled(
      all.map((j) => j.job_id),
      ['sent', 'dead'],
      30_000,
    );
    expect(views.map((v) => [v.state, v.chat_id])).toEqual(all.map(() => ['sent', String(moved)]));
    expect(to(moved).map((c) => c.body.text)).toEqual(all.map((j) => j.job_id));
    expect(to(old).length).toBe(1);
  });
});

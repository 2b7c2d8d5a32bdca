/**
 * A cooldown lifted early through instance A's admin API ends on instance B's worker too, when B learnt it
 * itself (its own 429 with a retry_after of an hour): on a real redis-server, with every poll, registry
 * refresh and recheck set far beyond the test, B's sends can only come from the lift's message (the lift
 * channel); with that message lost, from B's recheck of the gate. A cooldown set again after the lift holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboundWorkers } from '../../src/telegram/outbound/outbound-workers.service.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { RedisProcess, redisServerAvailable, startRedis } from '../support/redis-server.js';
import {
  Notify,
  SLOW_MACHINE,
  notice,
  outboundSetup,
  ready,
  token,
} from '../support/telegram-outbound.js';

const BOTS = [{ id: 'lb', scope: 'ops', token: token(8, 'X') }];
const NEVER = 600_000;

describe.skipIf(!redisServerAvailable())('lifting a cooldown learnt by another instance', () => {
  let api: FakeBotApi;
  let redis: RedisProcess;
  const apps: RunningApp[] = [];
  let notify: Notify;
  let admin: AdminClient;
  const texts = () => api.calls.filter((c) => c.token === BOTS[0]!.token).map((c) => c.body.text);

  /** A: the admin API, no worker. B: the only worker; its registry cache and recheck last `bRecheckMs`. */
  async function start(bRecheckMs: number): Promise<RunningApp> {
    const env = { REDIS_URL: redis.url, RAMPART_ENV: 'lift2', ADMIN_TOKEN };
    const slow = { ...SLOW_MACHINE, safetyPollMs: NEVER, registryRefreshMs: NEVER };
    const a = outboundSetup(BOTS, api.url, { ...slow, workers: false });
    const b = outboundSetup(BOTS, api.url, {
      ...slow,
      safetyPollMs: bRecheckMs,
      registryRefreshMs: bRecheckMs,
    });
    apps.push(await startApp({ ...a.env, ...env }), await startApp({ ...b.env, ...env }));
    notify = new Notify(apps[0]!.url, a.app);
    admin = new AdminClient(apps[0]!);
    await ready(notify);
    return apps[1]!;
  }

  /** B's worker gets a 429 of an hour; jobs queued behind it wait (chat 52's is not even claimed). */
  async function parkedBehind429(chat: number) {
    api.rule({ token: BOTS[0]!.token, status: 429, retryAfter: 3_600, times: 1 });
    const first = notice(chat, 'ops');
    await notify.post([first]);
    await api.waitFor((c) => c.body.text === first.job_id, 30_000);
    const later = [notice(chat, 'ops'), notice(chat + 1, 'ops')];
    expect((await notify.post(later)).status).toBe(202);
    await eventually(
      async () => [
        (await notify.get(first.job_id)).body,
        (await notify.get(later[1]!.job_id)).body,
      ],
      (v) => v[0]!.state === 'waiting' && v[1]!.state === 'queued',
      10_000,
    );
    return [first, ...later].map((j) => j.job_id);
  }

  beforeEach(async () => {
    api = await startFakeBotApi();
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
    await api.close();
    await redis.stop();
  });

  it(
    "should have B send right after a lift through A's admin API, and hold a cooldown set again after it",
    { timeout: 90_000 },
    async () => {
      await start(NEVER);
      const ids = await parkedBehind429(51);
      const lifted = await admin.call('PUT', '/admin/telegram/bots/lb/state', { state: 'active' });
      expect(lifted.status).toBe(200);
      const views = await notify.settled(ids, ['sent', 'dead'], 20_000);
      expect(views.map((v) => v.state)).toEqual(['sent', 'sent', 'sent']);
      expect(texts().filter((t) => t === ids[0])).toHaveLength(2); // the 429, then the send
      // Cooled again after the lift (a new 429 of an hour): nothing of the bot leaves inside it.
      const again = await parkedBehind429(61);
      const sent = texts().length;
      await new Promise((r) => setTimeout(r, 1_000));
      expect(texts()).toHaveLength(sent);
      expect(texts().filter((t) => again.includes(t as string))).toEqual([again[0]]);
    },
  );

  it(
    'should have B send after a lift whose message it missed, at its recheck of the gate',
    { timeout: 90_000 },
    async () => {
      const b = await start(300);
      const ids = await parkedBehind429(71);
      // B stops listening (the lift's message is lost to it); its recheck (every 300 ms) reads the gate.
      (b.app.get(OutboundWorkers) as unknown as { unwatch: () => void }).unwatch();
      const lifted = await admin.call('PUT', '/admin/telegram/bots/lb/state', { state: 'active' });
      expect(lifted.status).toBe(200);
      const views = await notify.settled(ids, ['sent', 'dead'], 20_000);
      expect(views.map((v) => v.state)).toEqual(['sent', 'sent', 'sent']);
    },
  );
});

/**
 * No raw user, chat or IP id in any Redis key or value (docs/security.md#ids-in-redis), on both adapters: one
 * app on a private redis-server gets representative traffic (app-signed requests naming a user, session-key
 * users, a denied session key, forged requests from an address, Telegram updates from a user in a private chat
 * and a group, notification jobs to a private chat and a group, one of them still waiting), then every key and
 * everything stored under it (strings, hashes, sets, sorted sets, lists, streams) is read back and searched for
 * the ids sent. The ids are distinctive (98765432101x) so a match cannot be a coincidence.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSessionKey, sessionKeyCredentials, signRequest } from '../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { containing, redisTexts } from '../support/redis-scan.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import {
  SessionKeyRoutesModule,
  sessionKeyApps,
  withSessionKeyPolicy,
} from '../support/session-key-routes.js';
import { deliver, textUpdate } from '../support/telegram.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const HEADER_USER = '987654321012';
const SESSION_USER = '987654321013';
const TG_USER = 987654321014;
const TG_GROUP = -1009876543215;
const JOB_CHAT = 987654321016;
const JOB_GROUP = -1009876543217;
const IP = '203.0.113.219';

/** Every form an id could take in Redis: as sent, and as a session key id carries its user (base64url). */
const NEEDLES = [
  HEADER_USER,
  SESSION_USER,
  Buffer.from(SESSION_USER).toString('base64url'),
  String(TG_USER),
  String(TG_GROUP).slice(1),
  String(JOB_CHAT),
  String(JOB_GROUP).slice(1),
  IP,
];

describe.skipIf(!canStartRedis()).each(ADAPTERS)('no raw id in Redis (%s)', (adapter) => {
  let server: RedisProcess;
  let api: FakeBotApi;
  let app: RunningApp;
  const apps = sessionKeyApps();

  beforeAll(async () => {
    server = await startRedis();
    api = await startFakeBotApi();
    const s = outboundSetup([{ id: 'a', scope: 'news', token: token(1) }], api.url);
    app = await startApp(
      {
        ...s.env,
        APPS_FILE: apps.file,
        HTTP_ADAPTER: adapter,
        ADMIN_TOKEN,
        REDIS_URL: server.url,
        RAMPART_ENV: uniqueEnv('ids'),
        TRUSTED_PROXIES: '127.0.0.1/32,::1/128',
      },
      { search: 'empty', imports: [SessionKeyRoutesModule], config: withSessionKeyPolicy },
    );
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
    await server?.stop();
  });

  it('should keep no raw user, chat or IP id in any key or value', async () => {
    const url = `${app.url}/sk-test/user`;
    const get = async (headers: Record<string, string>) => {
      const res = await fetch(url, { headers: { ...headers, 'x-forwarded-for': IP } });
      await res.arrayBuffer();
      return res.status;
    };
    // An app-signed request naming its user, a session-key user, forged requests from the address.
    const signed = signRequest({ appId: 'sk-web', secret: apps.web, method: 'GET', url });
    expect(await get({ ...signed, 'x-user-id': HEADER_USER })).toBe(200);
    const key = deriveSessionKey(apps.web, {
      appId: 'sk-web',
      user: SESSION_USER,
      scope: ['sk-user'],
      ttl: '2m',
    });
    expect(await get(signRequest({ ...sessionKeyCredentials(key), method: 'GET', url }))).toBe(200);
    for (let i = 0; i < 3; i++)
      expect(
        await get({
          'x-app-id': 'sk-web',
          'x-timestamp': String(Date.now()),
          'x-nonce': `forged-${i}-${Math.random()}`,
          'x-signature': '0'.repeat(64),
        }),
      ).toBe(401);
    // A denied session key (its id carries its user).
    const denied = await new AdminClient(app).call('POST', '/admin/apps/sk-web/session-keys/deny', {
      keyId: key.keyId,
    });
    expect(denied.status).toBeLessThan(300);
    expect(await get(signRequest({ ...sessionKeyCredentials(key), method: 'GET', url }))).toBe(401);

    // Telegram updates: a user in a private chat and in a group.
    const hook = { bot: 'a', path: 'outbound-path-secret-0123', secret: 'outbound_secret_1' };
    for (const chat of [TG_USER, TG_GROUP]) {
      const res = await deliver(app.url, textUpdate('hello', TG_USER, chat), { ...hook, ip: IP });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }

    // Notification jobs: two sent, one waiting (its lane and job still queued when Redis is read).
    const notify = new Notify(app.url, { appId: 'sk-web', secret: apps.web });
    await ready(notify);
    const sent = [notice(JOB_CHAT, 'news'), notice(JOB_GROUP, 'news')];
    const waiting = notice(JOB_CHAT, 'news', { not_before: Date.now() + 3_600_000 });
    const res = await notify.post({ jobs: [...sent, waiting] });
    expect(res.status, await res.clone().text()).toBe(202);
    const views = await notify.settled(sent.map((j) => j.job_id));
    expect(views.map((v) => v.state)).toEqual(['sent', 'sent']);
    // The API still answers the chat id (decrypted from the job).
    expect((await notify.get(waiting.job_id)).body).toMatchObject({ chat_id: String(JOB_CHAT) });

    const client = new Redis(server.url);
    try {
      // Risk observations are written a few milliseconds (20) after the answers, in batches.
      await new Promise((r) => setTimeout(r, 300));
      const texts = await redisTexts(client);
      // The scan sees the traffic: buckets, risk records, claims, the queue and the send gate.
      for (const part of [':risk:ip:', ':risk:user:', ':claim:', 'skdeny:', 'tgo:{'])
        expect(
          texts.some((t) => t.includes(part)),
          part,
        ).toBe(true);
      expect(containing(texts, NEEDLES)).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});

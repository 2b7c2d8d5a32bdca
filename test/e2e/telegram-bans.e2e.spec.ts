/**
 * Banned Telegram users and chats (docs/telegram.md#banned), two instances on one Redis, both
 * adapters: a ban set on one instance drops the user's updates on the other with 200 (Telegram does
 * not redeliver), counted as `banned`, never forwarded, with no Redis call; scoped by bot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotBackend, startFakeBotBackend } from '../support/fake-bot-backend.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, monitorCommands, startRedis } from '../support/redis-server.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

describe.skipIf(!canStartRedis()).each(ADAPTERS)('Telegram bans (%s)', (adapter) => {
  let server: RedisProcess;
  let be: FakeBotBackend;
  let a: RunningApp;
  let b: RunningApp;
  let admin: AdminClient;

  beforeAll(async () => {
    server = await startRedis();
    be = await startFakeBotBackend();
    const env = {
      HTTP_ADAPTER: adapter,
      REDIS_URL: server.url,
      RAMPART_ENV: uniqueEnv('tgban'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      ADMIN_TOKEN,
      CONFIG_FILE: telegramConfigFile([
        { id: 'demo', mode: 'forward', backendUrl: be.url },
        { id: 'other', mode: 'forward', backendUrl: be.url },
      ]),
    };
    [a, b] = [await startApp(env, { search: 'empty' }), await startApp(env, { search: 'empty' })];
    admin = new AdminClient(a);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await be?.close();
    await server?.stop();
  });

  /** Delivers `u` to `on` as bot `bot`: its status, and whether the bot backend received it. */
  const send = async (on: RunningApp, u: Record<string, unknown>, bot = 'demo') => {
    const res = await deliver(on.url, u, { bot });
    await res.arrayBuffer();
    return { status: res.status, forwarded: be.updates.includes(u.update_id as number) };
  };
  const banned = async (on: RunningApp) =>
    Number(
      /rampart_telegram_updates_total\{bot="demo"[^}]*outcome="banned"\} (\d+)/.exec(
        await (await fetch(`${on.url}/metrics`)).text(),
      )?.[1] ?? 0,
    );

  it("should drop a banned user's updates on the other instance with 200, for that bot only", async () => {
    const user = 9100;
    expect(await send(b, textUpdate('hi', user))).toEqual({ status: 200, forwarded: true });
    const set = await admin.call<{ id: string }>('POST', '/admin/bans', {
      dimension: 'user',
      subject: String(user),
      app: 'demo',
      ttlSeconds: 600,
    });
    expect(set.status).toBe(201);
    await eventually(
      () => send(b, textUpdate('hi', user)),
      (r) => !r.forwarded,
      2_000,
    );
    expect(await send(b, textUpdate('again', user))).toEqual({ status: 200, forwarded: false });
    expect(await banned(b)).toBeGreaterThanOrEqual(2);
    // The lock counts the drops too, by policy and dimension (never the user).
    const lockText = await (await fetch(`${b.url}/metrics`)).text();
    const drops =
      /rampart_ratelimit_banned_total\{policy="telegram-demo",dimension="user",outcome="dropped"\} (\d+)/;
    expect(Number(drops.exec(lockText)?.[1] ?? 0)).toBeGreaterThanOrEqual(2);
    expect(lockText).not.toContain(`="${user}"`);
    // The same Telegram id under another bot is another user.
    expect(await send(b, textUpdate('hi', user), 'other')).toEqual({
      status: 200,
      forwarded: true,
    });
    expect((await admin.call('DELETE', `/admin/bans/${set.body.id}`)).status).toBe(200);
    await eventually(
      () => send(b, textUpdate('back', user)),
      (r) => r.forwarded,
      2_000,
    );
  });

  it('should drop every update in a banned chat, with no Redis call', async () => {
    const chat = -1009200;
    await admin.call('POST', '/admin/bans', {
      dimension: 'chat',
      subject: String(chat),
      global: true,
      ttlSeconds: 600,
    });
    await eventually(
      () => send(b, textUpdate('hi', 9201, chat)),
      (r) => !r.forwarded,
      2_000,
    );
    const seen: string[][] = [];
    const m = await monitorCommands(server.port, (c) => {
      if (c.source !== 'lua') seen.push(c.args);
    });
    for (let i = 0; i < 10; i++)
      expect(await send(b, textUpdate('hi', 9202 + i, chat))).toEqual({
        status: 200,
        forwarded: false,
      });
    const during = seen.length;
    // The control: an update of another chat is decided in Redis (its claim rides in the script).
    expect(await send(b, textUpdate('hi', 9201, -1009201))).toEqual({
      status: 200,
      forwarded: true,
    });
    // A decision names the update's claim or the bot policy's buckets (the stats hash under cfg: is not one,
    // nor the load level's script, which reads every global bucket, telegram-demo's too).
    const decides = (args: string[]) =>
      !args[1]?.startsWith('cfg:') &&
      !args.some((x) => x.endsWith('}:load')) &&
      args.some((x) => /:claim:update:|telegram-demo/.test(x));
    await eventually(
      () => Promise.resolve(seen.slice(during).some(decides)),
      (x) => x,
      2_000,
    );
    m.stop();
    // Background work (heartbeats, Bloom builds, the outbound workers) aside, nothing decided them.
    expect(seen.slice(0, during).filter(decides)).toEqual([]);
  });
});

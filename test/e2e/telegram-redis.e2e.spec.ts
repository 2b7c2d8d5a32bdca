import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { containing, redisTexts } from '../support/redis-scan.js';
import { FakeBotBackend, startFakeBotBackend } from '../support/fake-bot-backend.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

describe.skipIf(!canStartRedis()).each(ADAPTERS)('Telegram ingress on Redis (%s)', (adapter) => {
  let server: RedisProcess;
  let be: FakeBotBackend;
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    server = await startRedis();
    be = await startFakeBotBackend();
    const env = {
      HTTP_ADAPTER: adapter,
      REDIS_URL: server.url,
      RAMPART_ENV: uniqueEnv('tg'),
      // Generous: a timed-out decision falls back to the local store, and the round-trip count would miss it.
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      CONFIG_FILE: telegramConfigFile([
        { id: 'demo', mode: 'forward', backendUrl: be.url, failMode: 'open' },
        { id: 'strict', mode: 'forward', backendUrl: be.url, failMode: 'closed' },
      ]),
    };
    a = await startApp(env, { search: 'empty' });
    b = await startApp(env, { search: 'empty' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await be?.close();
    await server?.stop();
  });

  it('should deduplicate an update_id across two instances sharing Redis', async () => {
    const u = textUpdate('hi', 3001);
    expect((await deliver(a.url, u)).status).toBe(200);
    expect((await deliver(b.url, u)).status).toBe(200);
    expect((await deliver(b.url, u, { bot: 'strict' })).status).toBe(200); // another bot: its own ids
    expect(be.updates.filter((id) => id === u.update_id)).toHaveLength(2);
  });

  it('should decide a verified update in one Redis round trip (claim and every rule in one script)', async () => {
    const monitor = spawn('redis-cli', ['-p', String(server.port), 'MONITOR']);
    let out = '';
    monitor.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    // MONITOR answers OK once it is attached: nothing sent before that is missed.
    await vi.waitFor(() => expect(out).toContain('OK'), { timeout: 10_000 });
    const n = 20;
    for (let i = 0; i < n; i++)
      await (await deliver(a.url, textUpdate('hello', 3100 + i))).arrayBuffer();
    const clientLines = () => out.split('\n').filter((l) => !/\[\d+ lua\]/.test(l));
    const claims = () => clientLines().filter((l) => l.includes(':claim:update:'));
    // The last update's script has run once its answer came; give MONITOR's output time to arrive.
    await vi.waitFor(() => expect(claims().length).toBeGreaterThanOrEqual(n), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 200));
    monitor.kill();
    // Each update's claim is taken in one call, which also decides every rule (user, chat, global) …
    expect(claims()).toHaveLength(n);
    for (const l of claims()) expect(l).toMatch(/"eval(sha)?" .*:global:.*:user:.*:claim:update:/);
    // … and no other call a client sent touches a bucket of the bot's policy. (The risk records of
    // its users, `…:risk:user:…`, are written later off the request path, in batches; the load
    // level is computed in the background.)
    const buckets = clientLines().filter(
      (l) =>
        /\.(user|chat|global|command)"/.test(l) && /telegram-demo/.test(l) && !/:load"/.test(l),
    );
    expect(buckets.filter((l) => !l.includes(':claim:update:'))).toEqual([]);
  });

  it('should keep no raw user or chat id in any Redis key or value', async () => {
    const user = 987654321;
    for (let i = 0; i < 7; i++)
      await (
        await deliver(a.url, textUpdate(`hello ${i}`, user, -1009876543210 - i))
      ).arrayBuffer();
    await (await deliver(b.url, textUpdate('hi', user))).arrayBuffer();
    const client = new Redis(server.url);
    try {
      // Risk observations are written a few milliseconds (20) after the answer, in a batch.
      await new Promise((r) => setTimeout(r, 300));
      const texts = await redisTexts(client);
      expect(texts.length).toBeGreaterThan(10);
      expect(containing(texts, [String(user), '9876543210'])).toEqual([]);
    } finally {
      client.disconnect();
    }
  });

  it('should apply each bot’s failMode while Redis is down: open answers, closed refuses', async () => {
    await server.kill();
    try {
      const open = await deliver(a.url, textUpdate('hi', 3201));
      expect(open.status).toBe(200);
      const closed = await deliver(a.url, textUpdate('hi', 3202), { bot: 'strict' });
      expect(closed.status).toBe(503);
      // Open still dedups, per instance (the memory store's claims).
      const u = textUpdate('hi', 3203);
      await deliver(a.url, u);
      await deliver(a.url, u);
      expect(be.updates.filter((id) => id === u.update_id)).toHaveLength(1);
    } finally {
      await server.start();
    }
  });
});

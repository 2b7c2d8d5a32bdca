import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotBackend, startFakeBotBackend } from '../support/fake-bot-backend.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

/** MONITOR on the test's own redis-server: the lines clients sent (not the commands scripts ran). */
async function monitor(port: number): Promise<{ lines: () => string[]; stop: () => void }> {
  const p: ChildProcess = spawn('redis-cli', ['-p', String(port), 'MONITOR']);
  let out = '';
  p.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  await vi.waitFor(() => expect(out).toContain('OK'), { timeout: 10_000 });
  return {
    lines: () =>
      out.split('\n').filter((l) => /^\d+\.\d+ \[\d+ /.test(l) && !/\[\d+ lua\]/.test(l)),
    stop: () => p.kill(),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Issue 33: a verified update costs one Redis call (the decision); the risk writes of a bot at a
// normal pace ride in one batch per `risk.flush` (5 s), and an idle instance asks Redis almost nothing.
describe.skipIf(!canStartRedis())('Telegram ingress Redis cost (%s)', () => {
  const adapter = ADAPTERS[0];
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
      RAMPART_ENV: uniqueEnv('tgcost'),
      ADMIN_TOKEN,
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'forward', backendUrl: be.url }]),
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

  it('should ask Redis about once per update at a paced rate, risk writes included', async () => {
    const m = await monitor(server.port);
    const n = 40;
    for (let i = 0; i < n; i++) {
      await (await deliver(a.url, textUpdate('hello', 4100 + i, -1004100))).arrayBuffer();
      await sleep(100); // one at a time, as a bot's normal traffic (no burst to batch)
    }
    await sleep(300);
    m.stop();
    const scripts = m.lines().filter((l) => /"eval(sha)?"/.test(l));
    const decisions = scripts.filter((l) => l.includes(':claim:update:'));
    const risk = scripts.filter((l) => !l.includes(':claim:update:') && /:risk:/.test(l));
    expect(decisions).toHaveLength(n);
    // Two flush windows at most in this run (the first may open before it): not one write per update.
    expect(decisions.length + risk.length).toBeLessThanOrEqual(1.05 * n + 2);
  });

  it('should still score a user who spreads over many chats, once the batch is written', async () => {
    const admin = new AdminClient(a);
    const score = async (user: number) =>
      (await admin.get<{ score: number }>(`/admin/subjects/user/demo/${user}`)).body.score;
    // 4200 writes in 8 chats (chatSpread: more than 5 within 1 min); 4201 as often in one chat.
    for (let i = 0; i < 8; i++) {
      await (await deliver(a.url, textUpdate('hi', 4200, -1004200 - i))).arrayBuffer();
      await (await deliver(a.url, textUpdate('hi', 4201, -1004300))).arrayBuffer();
    }
    const calm = await score(4201);
    const spread = await eventually(
      () => score(4200),
      (s) => s >= calm + 10,
      15_000,
      100,
    );
    expect(spread).toBeGreaterThanOrEqual(calm + 10);
  });

  it('should keep two idle instances off Redis but for a few calls a second', async () => {
    await sleep(1_000); // the traffic above is over
    const m = await monitor(server.port);
    const windowS = 4;
    await sleep(windowS * 1000);
    m.stop();
    // The outbound worker's idle polling (`tgo:` keys) is its own matter (issue 33, left for it).
    const ours = m.lines().filter((l) => !/"tgo:/.test(l));
    // No load-level call of its own while no request asks for it (the heartbeat computes the level in its call:
    // its lines name the load key among its KEYS, and its script reads it).
    expect(ours.filter((l) => /"eval(sha)?" "[^"]*" "\d+" "[^"]*:load"/i.test(l))).toEqual([]);
    // Generous: heartbeats, stats publish and config syncs of two instances.
    expect(ours.length / windowS / 2).toBeLessThanOrEqual(7);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotBackend, startFakeBotBackend } from '../support/fake-bot-backend.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import {
  type MonitoredCommand,
  RedisProcess,
  monitorCommands,
  startRedis,
} from '../support/redis-server.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Issue 33: a slow bot (updates further apart than `risk.flush`) pays one Redis call per verified update, the
// decision: its risk observations and the load level (the load monitor's reading of the global buckets) ride on
// the instance heartbeat. The heartbeat and the flush delay are shortened
// here (300 ms, 500 ms; shipped 4 s, 5 s) so that "slower than the flush" takes seconds, not minutes.
describe.skipIf(!canStartRedis())('Telegram ingress Redis cost at a slow pace', () => {
  let server: RedisProcess;
  let be: FakeBotBackend;
  let app: RunningApp;

  beforeAll(async () => {
    server = await startRedis();
    be = await startFakeBotBackend();
    app = await startApp(
      {
        HTTP_ADAPTER: ADAPTERS[0],
        REDIS_URL: server.url,
        RAMPART_ENV: uniqueEnv('tgslow'),
        ADMIN_TOKEN,
        REDIS_COMMAND_TIMEOUT_MS: '1000',
        CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'forward', backendUrl: be.url }], {
          extra: { rateLimit: { heartbeat: '300ms', risk: { flush: '500ms' } } },
        }),
      },
      { search: 'empty' },
    );
  });
  afterAll(async () => {
    await app?.close();
    await be?.close();
    await server?.stop();
  });

  it('should make one Redis call per update, the risk observations and the load level riding on the heartbeat', async () => {
    const seen: MonitoredCommand[] = [];
    const m = await monitorCommands(server.port, (c) => {
      if (c.source !== 'lua') seen.push(c);
    });
    const n = 7;
    for (let i = 0; i < n; i++) {
      // One user writing in a new group each time, an update every 700 ms (slower than the 500 ms flush).
      await (await deliver(app.url, textUpdate('hello', 4500, -1004500 - i))).arrayBuffer();
      await sleep(700);
    }
    const during = seen.slice(); // every command of the updates' spell, before the admin reads below
    // The spread was scored (more than 5 chats within a minute: the 6th and 7th), through the heartbeat.
    const admin = new AdminClient(app);
    const spread = await eventually(
      async () =>
        (
          await admin.get<{ signals: Record<string, { count: number }> }>(
            '/admin/subjects/user/demo/4500',
          )
        ).body.signals.chat_spread?.count ?? 0,
      (c) => c >= n - 5,
      10_000,
      100,
    );
    m.stop();
    expect(spread).toBe(n - 5);
    const scripts = seen.filter((c) => /^eval(sha)?$/i.test(c.args[0] ?? ''));
    const keyOf = (c: MonitoredCommand) => c.args[3] ?? '';
    const decisions = scripts.filter((c) => c.args.some((a) => a.includes(':claim:update:')));
    const beats = scripts.filter((c) => keyOf(c).endsWith(':instances'));
    const riskOwn = scripts.filter(
      (c) => !decisions.includes(c) && !beats.includes(c) && /:risk[cp]?:/.test(keyOf(c)),
    );
    expect(decisions).toHaveLength(n);
    // No risk write of its own: every observation went with a heartbeat.
    expect(riskOwn).toEqual([]);
    expect(beats.some((c) => c.args.some((a) => a.includes(':riskc:')))).toBe(true);
    // Every command of the spell an update can cause (decisions, risk, the load level), the heartbeats apart
    // (the idle cost). The load level rides on the heartbeat too: no call of its own at this pace.
    const evals = during.filter((c) => /^eval(sha)?$/i.test(c.args[0] ?? ''));
    const loadOwn = evals.filter((c) => keyOf(c).endsWith(':load'));
    const perUpdate = evals.filter(
      (c) =>
        !keyOf(c).endsWith(':instances') &&
        (c.args.some((a) => a.includes(':claim:update:')) ||
          keyOf(c).endsWith(':load') ||
          /:risk[cp]?:/.test(keyOf(c))),
    );
    expect(loadOwn).toEqual([]);
    expect(perUpdate.length / n).toBeLessThanOrEqual(1.05);
    expect(evals.filter((c) => keyOf(c).endsWith(':instances')).length).toBeGreaterThan(0);
  });
});

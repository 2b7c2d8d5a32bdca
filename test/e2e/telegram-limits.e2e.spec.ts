import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { deliver, fixture, telegramConfigFile, textUpdate } from '../support/telegram.js';

const ADMIN = 424242;

/** Delivers all at once (a burst: the buckets cannot refill in between), statuses in order. */
async function statuses(
  app: RunningApp,
  updates: unknown[],
  o: Parameters<typeof deliver>[2] = {},
) {
  return Promise.all(
    updates.map(async (u) => {
      const res = await deliver(app.url, u, o);
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

function counter(metrics: string, re: RegExp): number {
  return Number(re.exec(metrics)?.[1] ?? 0);
}

describe.each(ADAPTERS)('Telegram limits (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;
  const tells = (chatId: number) =>
    api.calls.filter(
      (c) =>
        c.method === 'sendMessage' &&
        String(c.body.chat_id) === String(chatId) &&
        /wait/.test(String(c.body.text)),
    );

  beforeAll(async () => {
    api = await startFakeBotApi();
    app = await startApp({
      HTTP_ADAPTER: adapter,
      ADMIN_TOKEN,
      TRUSTED_PROXIES: '127.0.0.1/32',
      CONFIG_FILE: telegramConfigFile(
        [
          { id: 'demo', mode: 'builtin', adminUserIds: [ADMIN] },
          { id: 'other', mode: 'builtin' },
        ],
        { apiRoot: api.url },
      ),
    });
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });
  const metrics = async () => (await fetch(`${app.url}/metrics`)).text();

  it('should limit one user to 20 updates a burst and answer 200 throughout', async () => {
    const user = 7001;
    const got = await statuses(
      app,
      Array.from({ length: 40 }, () => textUpdate('hello', user)),
    );
    expect(got.every((s) => s === 200)).toBe(true);
    await api.waitFor(
      (c) => String(c.body.chat_id) === String(user) && /wait/.test(String(c.body.text)),
    );
    const m = await metrics();
    expect(counter(m, /command="none",outcome="limited"\} (\d+)/)).toBeGreaterThanOrEqual(1);
    expect(counter(m, /rule="user",outcome="rejected"\} (\d+)/)).toBeGreaterThanOrEqual(1);
  });

  it("should keep a Telegram user's risk record per bot, read as user/<bot>/<id>", async () => {
    expect(await statuses(app, [textUpdate('hello', 7200)])).toEqual([200]);
    const admin = new AdminClient(app);
    const seen = async (bot: string) =>
      (await admin.get<{ firstSeen: string | null }>(`/admin/subjects/user/${bot}/7200`)).body
        .firstSeen;
    expect(await seen('demo')).not.toBeNull();
    expect(await seen('other')).toBeNull();
    expect(
      (await admin.get<{ firstSeen: string | null }>('/admin/subjects/chat/other/7200')).body
        .firstSeen,
    ).toBeNull();
  });

  it('should tell a limited user once per window, then drop without a word', async () => {
    // /ask: 3 a minute (cost 5 of 15 tokens): the window is ~20 s, longer than this test.
    const got = await statuses(
      app,
      Array.from({ length: 8 }, () => textUpdate('/ask hi', 7004)),
    );
    expect(got.every((s) => s === 200)).toBe(true);
    await api.waitFor((c) => String(c.body.chat_id) === '7004' && /wait/.test(String(c.body.text)));
    await statuses(
      app,
      Array.from({ length: 3 }, () => textUpdate('/ask again', 7004)),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(tells(7004)).toHaveLength(1);
    expect(String(tells(7004)[0]!.body.text)).toMatch(/wait \d+ s/);
  });

  it('should charge commands by their cost: 3 /ask and 6 /search a minute per user', async () => {
    const rejected = async (rule: string) =>
      counter(await metrics(), new RegExp(`rule="${rule}",outcome="rejected"\\} (\\d+)`));
    const [ask0, search0] = [await rejected('ask'), await rejected('search')];
    const ask = await statuses(
      app,
      Array.from({ length: 5 }, () => textUpdate('/ask hi', 7002)),
    );
    expect(ask).toEqual([200, 200, 200, 200, 200]);
    expect((await rejected('ask')) - ask0).toBe(2);
    await statuses(
      app,
      Array.from({ length: 8 }, () => textUpdate('/search paris', 7003)),
    );
    expect((await rejected('search')) - search0).toBe(2);
  });

  it('should limit a group chat as a whole (80 per burst) across its members', async () => {
    const chat = -100555;
    const updates = Array.from({ length: 130 }, (_, i) => textUpdate('msg', 8000 + i, chat));
    await statuses(app, updates);
    await api.waitFor(
      (c) => String(c.body.chat_id) === String(chat) && /wait/.test(String(c.body.text)),
    );
    expect(
      counter(await metrics(), /rule="chat",outcome="rejected"\} (\d+)/),
    ).toBeGreaterThanOrEqual(1);
  });

  it('should answer a limited callback query with answerCallbackQuery and the wait', async () => {
    for (let i = 0; i < 22; i++) await deliver(app.url, fixture('callback-query', 600_000 + i));
    const call = await api.waitFor((c) => c.method === 'answerCallbackQuery');
    expect(call.body.callback_query_id).toBe('4382bfdwdsb323b2d9');
    expect(String(call.body.text)).toMatch(/wait \d+ s/);
  });

  it("should answer an admin's update on the global rule (telegram-admin-exempt.e2e proves the exemption)", async () => {
    // Global is 2000 a minute: not reachable here; the admin's role is what the rule tests.
    const res = await deliver(app.url, textUpdate('/help', ADMIN));
    expect(res.status).toBe(200);
    const m = await metrics();
    expect(m).toMatch(
      /rampart_ratelimit_decisions_total\{policy="telegram-demo",rule="global",outcome="allowed"\} \d+/,
    );
  });

  it('should limit unverified requests per IP (429 past 120) and never verified ones', async () => {
    const forged = Array.from({ length: 150 }, () => textUpdate('x', 9999));
    const got = await statuses(app, forged, { secret: 'forged_secret', ip: '203.0.113.7' });
    expect(got.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(got.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(got.filter((s) => s === 401).length).toBeGreaterThanOrEqual(120);
    // The same address with the right secret: verified, not subject to the per-IP rule.
    const ok = await statuses(app, [textUpdate('/help', 7100)], { ip: '203.0.113.7' });
    expect(ok).toEqual([200]);
    // Another address is not affected.
    expect(
      await statuses(app, [textUpdate('x', 9998)], { secret: 'forged_secret', ip: '203.0.113.8' }),
    ).toEqual([401]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import {
  BOT_TOKEN,
  PATH_SECRET,
  PREVIOUS,
  deliver,
  fixture,
  telegramConfigFile,
  textUpdate,
} from '../support/telegram.js';

const FIXTURES = [
  'message-private-help',
  'message-group-search-botname',
  'message-supergroup-ask',
  'message-supergroup-other-bot',
  'message-group-text',
  'edited-message',
  'callback-query',
  'inline-query',
  'my-chat-member',
  'channel-post',
  'unknown-kind',
];

describe.each(ADAPTERS)('Telegram ingress, builtin bot (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;
  let admin: AdminClient;

  beforeAll(async () => {
    api = await startFakeBotApi();
    app = await startApp({
      HTTP_ADAPTER: adapter,
      ADMIN_TOKEN,
      CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'builtin' }], { apiRoot: api.url }),
    });
    admin = new AdminClient(app);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should accept the current and the previous secret token', async () => {
    expect((await deliver(app.url, textUpdate('hi'))).status).toBe(200);
    expect((await deliver(app.url, textUpdate('hi'), { secret: PREVIOUS })).status).toBe(200);
  });

  it('should answer 401 to a wrong or missing secret, a wrong path or an unknown bot', async () => {
    const cases = [
      await deliver(app.url, textUpdate('/help'), { secret: 'wrong_secret' }),
      await deliver(app.url, textUpdate('/help'), { secret: null }),
      await deliver(app.url, textUpdate('/help'), { path: 'not-the-path-secret-000' }),
      await deliver(app.url, textUpdate('/help'), { bot: 'nobot' }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      const text = await res.text();
      expect(text).not.toContain(BOT_TOKEN);
      expect(text).not.toContain(PATH_SECRET);
    }
    const sent = api.calls.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(api.calls.length).toBe(sent); // nothing else happened
  });

  it('should answer 200 to every real update shape, and to malformed ones', async () => {
    for (const name of FIXTURES) {
      const res = await deliver(app.url, fixture(name));
      expect(res.status, name).toBe(200);
    }
    for (const junk of [{}, { update_id: 'x' }, [], { update_id: -1 }, 'null']) {
      expect((await deliver(app.url, junk)).status).toBe(200);
    }
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(
      /rampart_telegram_updates_total\{bot="demo",kind="malformed",command="none",outcome="malformed"\} 5/,
    );
    expect(metrics).toMatch(
      /rampart_telegram_updates_total\{bot="demo",kind="unknown",command="none",outcome="handled"\} 1/,
    );
    expect(metrics).not.toMatch(/111111111|4001234567/);
  });

  it('should answer /help and /search through the Bot API (fake, on loopback)', async () => {
    await deliver(app.url, textUpdate('/help', 42));
    const help = await api.waitFor(
      (c) => c.method === 'sendMessage' && String(c.body.chat_id) === '42',
    );
    expect(help.token).toBe(BOT_TOKEN);
    expect(String(help.body.text)).toContain('/search');
    await deliver(app.url, textUpdate('/search@rampart_demo_bot berlin', 43, -100777));
    const found = await api.waitFor(
      (c) => c.method === 'sendMessage' && String(c.body.chat_id) === '-100777',
    );
    expect(String(found.body.text)).toMatch(/Berlin/);
  });

  it('should turn a query with a word no city has away before the backend (Bloom), still answering', async () => {
    // The filter is built in the background at boot: ask until the lookups are answered by it.
    let absent = 0;
    for (let i = 0; i < 100 && absent === 0; i++) {
      await deliver(app.url, textUpdate('/search qzxqzxqzx', 4400 + i));
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      absent = Number(
        /bloom_lookups_total\{filter="search-terms",verdict="absent"\} (\d+)/.exec(metrics)?.[1] ??
          0,
      );
      if (absent === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(absent).toBeGreaterThan(0);
    const none = await api.waitFor(
      (c) => c.method === 'sendMessage' && /Nothing found for “qzx/.test(String(c.body.text)),
    );
    expect(none.token).toBe(BOT_TOKEN);
  });

  it('should answer /ask through the inference breaker, and say "busy" while it is forced open', async () => {
    await deliver(app.url, textUpdate('/ask what is the capital of France?', 51, 51));
    const answer = await api.waitFor(
      (c) => c.method === 'sendMessage' && String(c.body.chat_id) === '51',
    );
    expect(String(answer.body.text)).toMatch(/demo model/);

    expect(
      (await admin.call('PUT', '/admin/breakers/inference/force', { state: 'open' })).status,
    ).toBe(200);
    try {
      const res = await deliver(app.url, textUpdate('/ask are you there?', 52, 52));
      expect(res.status).toBe(200);
      const busy = await api.waitFor(
        (c) => c.method === 'sendMessage' && String(c.body.chat_id) === '52',
      );
      expect(String(busy.body.text)).toMatch(/^Busy right now; try again in \d+ s\.$/);
    } finally {
      await admin.call('DELETE', '/admin/breakers/inference/force');
    }
    await deliver(app.url, textUpdate('/ask back again?', 53, 53));
    const again = await api.waitFor(
      (c) => c.method === 'sendMessage' && String(c.body.chat_id) === '53',
    );
    expect(String(again.body.text)).toMatch(/demo model/);
  });

  it('should answer /search through the search breaker, and say "busy" while it is forced open', async () => {
    expect(
      (await admin.call('PUT', '/admin/breakers/search/force', { state: 'open' })).status,
    ).toBe(200);
    try {
      const res = await deliver(app.url, textUpdate('/search paris', 61, 61));
      expect(res.status).toBe(200);
      const busy = await api.waitFor(
        (c) => c.method === 'sendMessage' && String(c.body.chat_id) === '61',
      );
      expect(String(busy.body.text)).toMatch(/^Busy right now; try again in \d+ s\.$/);
    } finally {
      await admin.call('DELETE', '/admin/breakers/search/force');
    }
    await deliver(app.url, textUpdate('/search paris', 62, 62));
    const found = await api.waitFor(
      (c) => c.method === 'sendMessage' && String(c.body.chat_id) === '62',
    );
    expect(String(found.body.text)).toMatch(/Paris/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READY_DETAIL } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { BOT_TOKEN, PATH_SECRET, SECRET, telegramConfigFile } from '../support/telegram.js';
import { runSetWebhookCli } from '../../src/telegram/set-webhook-cli.js';

describe('npm run telegram:set-webhook', () => {
  it('should call setWebhook with the secret token, the allowed updates and pending updates kept', async () => {
    const api = await startFakeBotApi();
    try {
      const out: string[] = [];
      const err: string[] = [];
      const env = {
        CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'builtin' }], { apiRoot: api.url }),
      };
      const code = await runSetWebhookCli(['demo', 'https://bots.example.com/'], {
        env,
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      expect(code).toBe(0);
      const call = await api.waitFor((c) => c.method === 'setWebhook');
      expect(call.token).toBe(BOT_TOKEN);
      expect(call.body).toMatchObject({
        url: `https://bots.example.com/telegram/demo/${PATH_SECRET}`,
        secret_token: SECRET,
        drop_pending_updates: false,
        max_connections: 40,
      });
      expect(call.body.allowed_updates).toEqual(
        expect.arrayContaining(['message', 'callback_query']),
      );
      // What it prints names the bot by fingerprint, never the token or the path secret.
      expect(out.join('\n')).not.toContain(BOT_TOKEN);
      expect(out.join('\n')).not.toContain(PATH_SECRET);
      expect(
        await runSetWebhookCli(['nobot', 'https://x.example'], {
          env,
          out: () => {},
          err: () => {},
        }),
      ).toBe(2);
      expect(await runSetWebhookCli(['demo'], { env, out: () => {}, err: () => {} })).toBe(2);
      api.failWith(401);
      const e2: string[] = [];
      expect(
        await runSetWebhookCli(['demo', 'https://x.example'], {
          env,
          out: () => {},
          err: (l) => e2.push(l),
        }),
      ).toBe(1);
      expect(e2.join('\n')).not.toContain(BOT_TOKEN);
    } finally {
      await api.close();
    }
  });
});

describe.each(ADAPTERS)('/health/ready and the webhook (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;

  beforeAll(async () => {
    api = await startFakeBotApi();
    api.webhookInfo = {
      pending_update_count: 7,
      last_error_message: 'Read timeout expired',
      last_error_date: 1764590000,
    };
    app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        ADMIN_TOKEN,
        CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'builtin' }], {
          apiRoot: api.url,
          poll: 1_000,
        }),
      },
      { search: 'empty' },
    );
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should show a webhook Telegram reports errors for as degraded, never down, without the token', async () => {
    let body: { status?: string; info?: Record<string, { status: string; message?: string }> } = {};
    let status = 0;
    // Ready only when armed: the instance answers 503 until its Bloom filters are built.
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${app.url}/health/ready`, READY_DETAIL);
      status = res.status;
      body = (await res.json()) as typeof body;
      if (status === 200 && body.info?.telegram?.message?.includes('Read timeout')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(body.info?.telegram).toMatchObject({ status: 'degraded' });
    expect(body.info?.telegram?.message).toMatch(
      /demo: 7 pending, last error "Read timeout expired"/,
    );
    expect(JSON.stringify(body)).not.toContain(BOT_TOKEN);
    // Polled in the background (every second here), not per probe: 10 probes at once, at most a poll or two.
    const count = () => api.calls.filter((c) => c.method === 'getWebhookInfo').length;
    const before = count();
    await Promise.all(
      Array.from({ length: 10 }, async () =>
        (await fetch(`${app.url}/health/ready`, READY_DETAIL)).arrayBuffer(),
      ),
    );
    expect(count() - before).toBeLessThanOrEqual(2);
  });
});

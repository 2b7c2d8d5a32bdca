import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_DEFAULTS } from '../../src/locks/rate-limit/rate-limit.defaults.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

const ADMIN = 515151;

/**
 * The shipped telegram policy exempts the bots' admins from the global rule (`unless: {role:
 * [admin]}`). The shipped rules are used as they are, only the global rule's size is cut to 3 so
 * the test can spend it: removing the exemption from the shipped rule makes this fail.
 */
function shippedRulesWithASmallGlobal(): unknown[] {
  const rules = (RATE_LIMIT_DEFAULTS.telegram as unknown as { rules: Record<string, unknown>[] })
    .rules;
  return rules.map((r) => (r.name === 'global' ? { ...r, capacity: 3, rate: '1/h' } : r));
}

describe.each(ADAPTERS)('Telegram: admins exempt from the global rule (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;
  const metric = async (re: RegExp) =>
    Number(re.exec(await (await fetch(`${app.url}/metrics`)).text())?.[1] ?? 0);
  const globalRejected = () =>
    metric(/decisions_total\{policy="telegram-demo",rule="global",outcome="rejected"\} (\d+)/);

  beforeAll(async () => {
    api = await startFakeBotApi();
    app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'builtin', adminUserIds: [ADMIN] }], {
          apiRoot: api.url,
          extra: {
            // A global rule this small would read as a service at load: the load level is pinned.
            rateLimit: { load: { pin: 'normal' } },
            policies: {
              telegram: { locks: { rateLimit: { rules: shippedRulesWithASmallGlobal() } } },
            },
          },
        }),
      },
      { search: 'empty' },
    );
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should limit everyone else on the global rule once it is spent, and never the admin', async () => {
    // Three users spend the global rule; a fourth is limited by it (answered 200, told to wait).
    for (const user of [6101, 6102, 6103, 6104])
      expect((await deliver(app.url, textUpdate('/help', user))).status).toBe(200);
    expect(await globalRejected()).toBe(1);
    await api.waitFor((c) => String(c.body.chat_id) === '6104' && /wait/.test(String(c.body.text)));
    // The admin, on the same spent rule, is answered as usual, every time.
    for (let i = 0; i < 3; i++)
      expect((await deliver(app.url, textUpdate('/help', ADMIN))).status).toBe(200);
    expect(await globalRejected()).toBe(1);
    await api.waitFor(
      (c) => String(c.body.chat_id) === String(ADMIN) && !/wait/.test(String(c.body.text)),
    );
    const told = api.calls.filter(
      (c) => String(c.body.chat_id) === String(ADMIN) && /wait/.test(String(c.body.text)),
    );
    expect(told).toEqual([]);
  });
});

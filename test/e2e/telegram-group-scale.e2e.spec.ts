import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_DEFAULTS } from '../../src/locks/rate-limit/rate-limit.defaults.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

const LARGE = -1001000000201;
const SMALL = -1001000000005;

/** The shipped rules with a small chat-wide bucket (3, no refill within the test). */
function rules(): unknown[] {
  const shipped = (RATE_LIMIT_DEFAULTS.telegram as unknown as { rules: { name: string }[] }).rules;
  return shipped.map((r) => (r.name === 'chat' ? { ...r, capacity: 3, rate: '1/h' } : r));
}

/**
 * Group size as a quota input (docs/telegram.md#group-size): a group of 200 gets ×4 the chat-wide bucket of a
 * group of 5; the member count is fetched once per chat in the background, never per update.
 */
describe.each(ADAPTERS)('Telegram group size scales the chat bucket (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;
  let user = 9000;
  const metric = async (re: RegExp) =>
    Number(re.exec(await (await fetch(`${app.url}/metrics`)).text())?.[1] ?? 0);
  const rejected = () =>
    metric(/decisions_total\{policy="telegram-demo",rule="chat",outcome="rejected"\} (\d+)/);
  const lookups = () =>
    metric(/rampart_telegram_group_size_lookups_total\{bot="demo",outcome="ok"\} (\d+)/);
  const send = async (chat: number, bot = 'demo') =>
    (await deliver(app.url, textUpdate('hello', ++user, chat), { bot })).status;
  /** Updates to `chat` the chat rule refused out of `n`. */
  const refusedOf = async (chat: number, n: number) => {
    const before = await rejected();
    for (let i = 0; i < n; i++) expect(await send(chat)).toBe(200);
    return (await rejected()) - before;
  };

  beforeAll(async () => {
    api = await startFakeBotApi();
    api.memberCounts = { [String(LARGE)]: 200, [String(SMALL)]: 5 };
    const groupScale = [
      { members: 0, factor: 1 },
      { members: 100, factor: 4 },
    ];
    app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        CONFIG_FILE: telegramConfigFile(
          [
            { id: 'demo', mode: 'builtin', groupScale },
            { id: 'other', mode: 'builtin' },
          ],
          {
            apiRoot: api.url,
            extra: { policies: { telegram: { locks: { rateLimit: { rules: rules() } } } } },
          },
        ),
      },
      { search: 'empty' },
    );
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should give a large group a bigger chat-wide burst, fetching each count once', async () => {
    // The first update of each group: factor 1, and a background getChatMemberCount.
    expect(await send(LARGE)).toBe(200);
    expect(await send(SMALL)).toBe(200);
    for (let i = 0; i < 200 && (await lookups()) < 2; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await lookups()).toBe(2);
    // Small group (×1): 2 of its 3 left, so 8 of 10 refused. Large group (×4, 12): its first update spent an
    // hour of the ×1 refill, 4 tokens at ×4, so 8 left and 7 of 15 refused (without the scale: 13).
    expect(await refusedOf(SMALL, 10)).toBe(8);
    expect(await refusedOf(LARGE, 15)).toBe(7);
    const counts = api.calls.filter((c) => c.method === 'getChatMemberCount');
    expect(counts.map((c) => String(c.body.chat_id)).sort()).toEqual(
      [String(LARGE), String(SMALL)].sort(),
    );
  });

  it("should not scale, nor look up, another bot's same groups (no groupScale)", async () => {
    const calls = api.calls.filter((c) => c.method === 'getChatMemberCount').length;
    const refused = () =>
      metric(/decisions_total\{policy="telegram-other",rule="chat",outcome="rejected"\} (\d+)/);
    for (let i = 0; i < 10; i++) expect(await send(LARGE, 'other')).toBe(200);
    // Its own chat bucket for the same group, at ×1: 3 allowed, 7 refused; no lookup.
    expect(await refused()).toBe(7);
    expect(api.calls.filter((c) => c.method === 'getChatMemberCount')).toHaveLength(calls);
  });
});

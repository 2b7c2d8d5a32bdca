import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_DEFAULTS } from '../../src/locks/rate-limit/rate-limit.defaults.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

/**
 * The `command` and `bot` dimensions of a Telegram update: a rule per command counts each command
 * apart (whoever sends it), a rule per bot counts each bot apart. The shipped rules plus one rule
 * of each, small enough to spend (costs: /search 2, /help 1).
 */
function rules(): unknown[] {
  const shipped = (RATE_LIMIT_DEFAULTS.telegram as unknown as { rules: unknown[] }).rules;
  return [
    ...shipped,
    { name: 'per-command', dimension: 'command', capacity: 4, rate: '1/h' },
    // One bucket name for every bot's policy: only the bot subject keeps two bots apart.
    { name: 'per-bot', dimension: 'bot', capacity: 6, rate: '1/h', action: 'telegram.per-bot' },
  ];
}

describe.each(ADAPTERS)('Telegram command and bot dimensions (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;
  const rejected = async (policy: string, rule: string) => {
    const m = await (await fetch(`${app.url}/metrics`)).text();
    const re = new RegExp(
      `decisions_total\\{policy="${policy}",rule="${rule}",outcome="rejected"\\} (\\d+)`,
    );
    return Number(re.exec(m)?.[1] ?? 0);
  };
  const send = async (text: string, user: number, bot = 'demo') =>
    (await deliver(app.url, textUpdate(text, user), { bot })).status;

  beforeAll(async () => {
    api = await startFakeBotApi();
    app = await startApp({
      HTTP_ADAPTER: adapter,
      CONFIG_FILE: telegramConfigFile(
        [
          { id: 'demo', mode: 'builtin' },
          { id: 'other', mode: 'builtin' },
        ],
        {
          apiRoot: api.url,
          extra: { policies: { telegram: { locks: { rateLimit: { rules: rules() } } } } },
        },
      ),
    });
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should count each command apart, across users', async () => {
    // Two users' /search spend the command's 4; a third user's /search is limited on it …
    expect([await send('/search a', 8101), await send('/search b', 8102)]).toEqual([200, 200]);
    expect(await send('/search c', 8103)).toBe(200); // flagged: answered 200, told to wait
    expect(await rejected('telegram-demo', 'per-command')).toBe(1);
    // … while /help, another command, still has its own.
    expect(await send('/help', 8104)).toBe(200);
    expect(await rejected('telegram-demo', 'per-command')).toBe(1);
  });

  it('should count each bot apart', async () => {
    // demo has spent 5 of its 6 (two /search, one /help); one more /help, then it is limited.
    expect(await send('/help', 8105)).toBe(200);
    expect(await rejected('telegram-demo', 'per-bot')).toBe(0);
    expect(await send('/help', 8106)).toBe(200);
    expect(await rejected('telegram-demo', 'per-bot')).toBe(1);
    // The other bot's count is its own.
    expect(await send('/help', 8107, 'other')).toBe(200);
    expect(await rejected('telegram-other', 'per-bot')).toBe(0);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config.error.js';
import type { RampartConfig } from '../config/config.types.js';
import { OUTBOUND_DEFAULTS } from './outbound/outbound.settings.js';
import { telegramSettings, tokenFingerprint } from './telegram.settings.js';

const TOKEN = '7000000001:AAFakeTokenForTestsOnly_abcdefghijk';
const dir = mkdtempSync(join(tmpdir(), 'tg-settings-'));
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, `${TOKEN}\n`);

const config = (telegram: unknown) => ({ sections: { telegram } }) as unknown as RampartConfig;
const bot = (o: Record<string, unknown> = {}) => ({
  id: 'shop',
  tokenFile,
  secretTokens: ['current_1'],
  pathSecret: 'abcdefghijklmnop',
  mode: 'builtin',
  ...o,
});

function problems(telegram: unknown, env = {}): readonly string[] {
  try {
    telegramSettings(config(telegram), env);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
}

describe(telegramSettings.name, () => {
  it('should read a bot with its token from a file or the environment, keeping only a fingerprint visible', () => {
    const s = telegramSettings(
      config({ bots: [bot(), bot({ id: 'env', tokenFile: undefined, tokenEnv: 'TG' })] }),
      { TG: TOKEN },
    );
    expect(s.bots.map((b) => b.id)).toEqual(['shop', 'env']);
    expect(s.bots[0]!.token).toBe(TOKEN);
    expect(s.bots[0]!.fingerprint).toBe(tokenFingerprint(TOKEN));
    expect(s.bots[0]!.fingerprint).not.toContain('AAFake');
    expect(s.bots[0]!.commandCosts).toMatchObject({ '/help': 1, '/search': 2, '/ask': 5 });
    expect(s.apiRoot).toBe('https://api.telegram.org');
    expect(s.bots[0]!.maxConnections).toBe(40); // Telegram's own default
  });

  it('should list every problem at once, never echoing a token', () => {
    const p = problems({
      apiRoot: 'ftp://x',
      nope: 1,
      bots: [
        bot({ id: 'Bad Id', secretTokens: ['has space'], pathSecret: 'short', mode: 'x' }),
        bot({ mode: 'forward' }),
        bot({ tokenFile: undefined, tokenEnv: 'MISSING' }),
        bot({ id: 'two', tokenFile: undefined }),
        bot({ id: 'costly', commandCosts: { ask: 0 } }),
        bot({ id: 'wide', maxConnections: 101 }),
      ],
    });
    expect(p).toEqual(
      expect.arrayContaining([
        'CONFIG_FILE: telegram.apiRoot must be an http(s) URL',
        expect.stringMatching(/telegram\.nope is not a known option/),
        'CONFIG_FILE: telegram.bots[0].id must match [a-z0-9-]{1,32}',
        expect.stringMatching(/bots\[0\]\.secretTokens must be/),
        expect.stringMatching(/bots\[0\]\.pathSecret must be 16–128/),
        expect.stringMatching(/bots\[0\]\.mode must be one of forward, builtin/),
        'CONFIG_FILE: telegram.bots[1].backendUrl must be an http(s) URL in forward mode',
        'CONFIG_FILE: telegram.bots[2].tokenEnv: environment variable MISSING is not set',
        'CONFIG_FILE: telegram.bots[3] needs exactly one of tokenFile, tokenEnv',
        expect.stringMatching(/bots\[4\]\.commandCosts\["ask"\]/),
        "CONFIG_FILE: telegram.bots[5].maxConnections must be an integer from 1 to 100 (Telegram's range)",
      ]),
    );
    expect(p.join('\n')).not.toContain(TOKEN);
  });

  it('should read the apps a bot sends for, and refuse a list that is empty or not of app ids', () => {
    const s = telegramSettings(config({ bots: [bot({ apps: ['shop-1', 'blog'] })] }), {});
    expect(s.bots[0]!.apps).toEqual(['shop-1', 'blog']);
    expect(telegramSettings(config({ bots: [bot()] }), {}).bots[0]!.apps).toBeUndefined();
    for (const apps of [[], ['has space'], 'shop', [7]])
      expect(problems({ bots: [bot({ apps })] })).toEqual([
        'CONFIG_FILE: telegram.bots[0].apps must be a non-empty list of app ids (the apps that may send through it)',
      ]);
  });

  it('should refuse a bot id used twice and a token of the wrong shape', () => {
    writeFileSync(join(dir, 'bad'), 'not-a-token');
    expect(problems({ bots: [bot(), bot()] })).toEqual([
      'CONFIG_FILE: telegram.bots[1].id "shop" is used twice',
    ]);
    expect(problems({ bots: [bot({ tokenFile: join(dir, 'bad') })] })).toEqual([
      'CONFIG_FILE: telegram.bots[0]: the bot token is not of the form <digits>:<secret>',
    ]);
  });

  it('should take a polling bot without secrets (random per process) and check the polling options', () => {
    const s = telegramSettings(
      config({
        pollTimeoutS: 1,
        pollLeaseMs: 1500,
        bots: [bot({ ingress: 'polling', secretTokens: undefined, pathSecret: undefined })],
      }),
    );
    const b = s.bots[0]!;
    expect(b.ingress).toBe('polling');
    expect(b.pathSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.secretTokens![0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.secretTokens![0]).not.toBe(b.pathSecret);
    expect([s.pollTimeoutS, s.pollLeaseMs]).toEqual([1, 1500]);
    expect(telegramSettings(config({ bots: [bot()] })).bots[0]!.ingress).toBe('webhook');
    // A webhook bot still needs both secrets.
    expect(problems({ bots: [bot({ pathSecret: undefined })] })).toEqual([
      'CONFIG_FILE: telegram.bots[0].pathSecret must be 16–128 of A-Z a-z 0-9 _ -',
    ]);
    expect(
      problems({ pollTimeoutS: 51, pollLeaseMs: 999, bots: [bot({ ingress: 'pull' })] }),
    ).toEqual([
      'CONFIG_FILE: telegram.pollTimeoutS must be an integer number of seconds from 0 to 50',
      'CONFIG_FILE: telegram.pollLeaseMs must be an integer number of milliseconds ≥ 1000',
      'CONFIG_FILE: telegram.bots[0].ingress must be one of webhook, polling',
    ]);
  });

  it("should lay a bot's own outbound buckets over the global ones, for that bot only", () => {
    const s = telegramSettings(
      config({
        // Bots first: the global buckets still come under the bot's, whatever the key order.
        bots: [
          bot({
            outbound: {
              buckets: {
                bot: { rate: '20/s', burst: 2 },
                methods: { sendPhoto: { rate: '5/s' } },
              },
            },
          }),
          bot({ id: 'plain' }),
        ],
        outbound: {
          buckets: { private: { rate: '2/s' }, methods: { sendVideo: { rate: '1/s' } } },
        },
      }),
      {},
    );
    expect(s.bots[0]!.buckets).toEqual({
      bot: { perSecond: 20, burst: 2 },
      private: { perSecond: 2, burst: 1 },
      group: s.outbound.buckets.group,
      // The shipped sendMediaGroup default stays under both: a bot keeps the defaults unless it turns them off.
      methods: {
        sendMediaGroup: { perSecond: 15, burst: 5 },
        sendVideo: { perSecond: 1, burst: 1 },
        sendPhoto: { perSecond: 5, burst: 1 },
      },
    });
    expect(s.bots[1]!.buckets).toBeUndefined();
    expect(s.outbound.buckets.bot).toEqual(OUTBOUND_DEFAULTS.buckets.bot);
    expect(
      problems({
        bots: [
          bot({ outbound: { buckets: { bot: { rate: 'fast' }, chat: {} }, retries: 2 } }),
          bot({ id: 'two', outbound: 'x' }),
        ],
      }),
    ).toEqual([
      'CONFIG_FILE: telegram.bots[0].outbound.buckets.bot must be { rate: "<n>/<unit>", burst?: integer ≥ 1 }',
      'CONFIG_FILE: telegram.bots[0].outbound.buckets.chat is not a known bucket (bot, private, group, methods)',
      'CONFIG_FILE: telegram.bots[0].outbound.retries is not a known option (buckets, chats)',
      'CONFIG_FILE: telegram.bots[1].outbound must be an object ({ buckets, chats })',
    ]);
  });

  it("should read a bot's declared chats (groups and channels only), and refuse a private chat's id", () => {
    const s = telegramSettings(
      config({ bots: [bot({ outbound: { chats: [-1001234567890, '-42'] } })] }),
      {},
    );
    expect([...s.bots[0]!.chats!]).toEqual(['-1001234567890', '-42']);
    const bad =
      'must be a list of 1–10000 group or channel ids (negative integers; no private chats)';
    expect(
      problems({
        bots: [
          bot({ outbound: { chats: [-5, 777] } }),
          bot({ id: 'two', outbound: { chats: [] } }),
        ],
      }),
    ).toEqual([
      `CONFIG_FILE: telegram.bots[0].outbound.chats ${bad}`,
      `CONFIG_FILE: telegram.bots[1].outbound.chats ${bad}`,
    ]);
  });

  it('should take an outbound-only bot without webhook settings, and refuse them on it', () => {
    const only = { id: 'sender', tokenFile, mode: 'outbound' };
    const s = telegramSettings(config({ bots: [only] }), {});
    expect(s.bots[0]).toMatchObject({ id: 'sender', mode: 'outbound' });
    expect(s.bots[0]!.pathSecret).toBeUndefined();
    expect(s.bots[0]!.secretTokens).toBeUndefined();
    // A webhook bot still needs them.
    expect(problems({ bots: [{ ...only, mode: 'builtin' }] })).toEqual([
      expect.stringMatching(/bots\[0\]\.secretTokens must be/),
      expect.stringMatching(/bots\[0\]\.pathSecret must be/),
    ]);
    expect(
      problems({ bots: [{ ...only, pathSecret: 'abcdefghijklmnop', secretTokens: ['s'] }] }),
    ).toEqual([
      'CONFIG_FILE: telegram.bots[0].secretTokens: an outbound-only bot (mode outbound) takes no webhook settings',
      'CONFIG_FILE: telegram.bots[0].pathSecret: an outbound-only bot (mode outbound) takes no webhook settings',
    ]);
  });
});

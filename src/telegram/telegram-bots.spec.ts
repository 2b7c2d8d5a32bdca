import { describe, expect, it } from 'vitest';
import type { AnyRequest } from '../http/http-context.js';
import { TelegramBots } from './telegram-bots.js';
import type { BotConfig, TelegramSettings } from './telegram.types.js';
import { OUTBOUND_DEFAULTS } from './outbound/outbound.settings.js';

const bot = (o: Partial<BotConfig>): BotConfig => ({
  id: 'x',
  token: '1:secret',
  fingerprint: 'f',
  mode: 'builtin',
  ingress: 'webhook',
  commandCosts: {},
  adminUserIds: [],
  maxConnections: 40,
  scope: 'default',
  tokenSource: { env: 'T' },
  ...o,
});

const bots = new TelegramBots({
  apiRoot: 'http://127.0.0.1:9',
  webhookInfoPollMs: 0,
  forwardTimeoutMs: 1_000,
  outbound: OUTBOUND_DEFAULTS,
  bots: [
    bot({ id: 'hooked', secretTokens: ['s'], pathSecret: 'path-secret-0123456' }),
    bot({ id: 'sender', mode: 'outbound' }),
  ],
} as TelegramSettings);

const req = (botId: string, pathSecret: string) =>
  ({ params: { botId, pathSecret }, body: { update_id: 1 } }) as unknown as AnyRequest;

describe(TelegramBots.name, () => {
  it('should find a webhook bot by its path secret only', () => {
    expect(bots.bot(req('hooked', 'path-secret-0123456'))?.id).toBe('hooked');
    expect(bots.bot(req('hooked', 'path-secret-0123457'))).toBeUndefined();
  });

  it('should let no path reach an outbound-only bot, not even the placeholder of a missing secret', () => {
    for (const path of ['\0', '', 'path-secret-0123456'])
      expect(bots.bot(req('sender', path))).toBeUndefined();
  });
});

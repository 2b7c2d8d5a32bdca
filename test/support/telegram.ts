/**
 * Telegram test helpers: a CONFIG_FILE with bots (tokens in a file), the
 * fixtures under test/fixtures/telegram, and a webhook driver that POSTs an
 * update the way Telegram does.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addSecret } from './secret-scan.js';

export const BOT_TOKEN = '7000000001:AAFakeTokenForTestsOnly_abcdefghijk';
export const SECRET = 'current_secret_1';
export const PREVIOUS = 'previous_secret_0';
export const PATH_SECRET = 'p4th-s3cret-0123456789';

export interface TestBot {
  id: string;
  mode: 'forward' | 'builtin';
  backendUrl?: string;
  failMode?: 'open' | 'closed' | 'local';
  adminUserIds?: number[];
  ingress?: 'webhook' | 'polling';
  groupScale?: { members: number; factor: number }[];
}

/** Writes a CONFIG_FILE with these bots (and any extra top-level sections); returns its path. */
export function telegramConfigFile(
  bots: TestBot[],
  opts: {
    apiRoot?: string;
    extra?: Record<string, unknown>;
    poll?: number;
    /** More options of the `telegram:` section (e.g. pollTimeoutS, pollLeaseMs). */
    telegram?: Record<string, unknown>;
  } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-tg-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${BOT_TOKEN}\n`);
  // The e2e secret scan looks for the bot token and both secret tokens in every log line and answer.
  addSecret(BOT_TOKEN, 'the test bot token');
  addSecret(SECRET, 'the current webhook secret token');
  addSecret(PREVIOUS, 'the previous webhook secret token');
  const config = {
    ...opts.extra,
    telegram: {
      apiRoot: opts.apiRoot ?? 'http://127.0.0.1:9',
      webhookInfoPollMs: opts.poll ?? 0,
      forwardTimeoutMs: 2_000,
      ...opts.telegram,
      bots: bots.map((b) => ({
        username: 'rampart_demo_bot',
        tokenFile,
        secretTokens: [SECRET, PREVIOUS],
        pathSecret: PATH_SECRET,
        ...b,
      })),
    },
  };
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** A fixture update (test/fixtures/telegram/<name>.json), optionally with another update_id. */
export function fixture(name: string, updateId?: number): Record<string, unknown> {
  const u = JSON.parse(
    readFileSync(new URL(`../fixtures/telegram/${name}.json`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  if (updateId !== undefined) u.update_id = updateId;
  return u;
}

/** Posts an update to `<base>/telegram/<bot>/<path>` as Telegram would. */
export function deliver(
  base: string,
  update: unknown,
  o: { bot?: string; path?: string; secret?: string | null; ip?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.secret !== null) headers['x-telegram-bot-api-secret-token'] = o.secret ?? SECRET;
  if (o.ip) headers['x-forwarded-for'] = o.ip;
  return fetch(`${base}/telegram/${o.bot ?? 'demo'}/${o.path ?? PATH_SECRET}`, {
    method: 'POST',
    headers,
    body: typeof update === 'string' ? update : JSON.stringify(update),
  });
}

/** A text message from `userId` in `chatId` (negative = group), with a fresh update_id. */
let nextId = 500_000_000;
export function textUpdate(text: string, userId = 111, chatId = userId): Record<string, unknown> {
  nextId += 1;
  return {
    update_id: nextId,
    message: {
      message_id: nextId % 100_000,
      from: { id: userId, is_bot: false, first_name: 'U' },
      chat:
        chatId < 0
          ? { id: chatId, title: 'G', type: 'supergroup' }
          : { id: chatId, type: 'private', first_name: 'U' },
      date: 1764590000,
      text,
    },
  };
}

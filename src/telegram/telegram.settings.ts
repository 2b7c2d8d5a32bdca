import { createHash } from 'node:crypto';
import { parseGroupScale } from './group-scale.js';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config.error.js';
import type { RampartConfig } from '../config/config.types.js';
import { readSecretEnv } from '../config/secret-env.js';
import { randomBytes } from 'node:crypto';
import { botOutbound } from './bot-outbound.settings.js';
import { type OutboundSettings, outboundSettings } from './outbound/outbound.settings.js';
import {
  BOT_INGRESS,
  BOT_MODES,
  BotIngress,
  BotConfig,
  BotMode,
  DEFAULT_COMMAND_COSTS,
  TelegramSettings,
} from './telegram.types.js';

/** Injection token of the validated TelegramSettings. */
export const TELEGRAM_SETTINGS = Symbol('TELEGRAM_SETTINGS');

const ID = /^[a-z0-9-]{1,32}$/;
const SECRET = /^[A-Za-z0-9_-]{1,256}$/;
const PATH_SECRET = /^[A-Za-z0-9_-]{16,128}$/;
const COMMAND = /^\/[a-z0-9_]{1,32}$/;
const USERNAME = /^[A-Za-z0-9_]{3,64}$/;
/** Telegram's own default for setWebhook's max_connections. */
export const DEFAULT_MAX_CONNECTIONS = 40;
/** An app id as the apps registry takes it. */
const APP_ID = /^[A-Za-z0-9._-]{1,64}$/;

const BOT_KEYS = [
  'id',
  'username',
  'tokenFile',
  'tokenEnv',
  'secretTokens',
  'pathSecret',
  'mode',
  'ingress',
  'backendUrl',
  'commandCosts',
  'adminUserIds',
  'groupScale',
  'failMode',
  'maxConnections',
  'scope',
  'apps',
  'outbound',
];
/** Webhook settings: required of a bot that takes updates, refused on an outbound-only bot. */
const WEBHOOK_KEYS = ['secretTokens', 'pathSecret', 'backendUrl', 'maxConnections', 'ingress'];

/** Fingerprint of a bot token: enough to tell two apart, never enough to use one. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

/** Reads and validates `config.sections.telegram`; throws ConfigError listing every problem. */
export function telegramSettings(
  config: RampartConfig,
  env: Record<string, string | undefined> = readSecretEnv(),
): TelegramSettings {
  const raw = (config.sections.telegram ?? {}) as Record<string, unknown>;
  const p: string[] = [];
  const out: TelegramSettings = {
    apiRoot: 'https://api.telegram.org',
    webhookInfoPollMs: 60_000,
    forwardTimeoutMs: 10_000,
    pollTimeoutS: 25,
    pollLeaseMs: 30_000,
    bots: [],
    outbound: outboundSettings(undefined, p),
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(['CONFIG_FILE: telegram must be an object']);
  // First: a bot's own buckets are laid over the global ones.
  out.outbound = outboundSettings(raw.outbound, p, env);
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'apiRoot') {
      if (typeof v === 'string' && /^https?:\/\/[^\s]+$/.test(v))
        out.apiRoot = v.replace(/\/+$/, '');
      else p.push('CONFIG_FILE: telegram.apiRoot must be an http(s) URL');
    } else if (k === 'webhookInfoPollMs' || k === 'forwardTimeoutMs') {
      if (Number.isInteger(v) && (v as number) >= (k === 'webhookInfoPollMs' ? 0 : 100))
        out[k] = v as number;
      else p.push(`CONFIG_FILE: telegram.${k} must be an integer number of milliseconds`);
    } else if (k === 'pollTimeoutS') {
      if (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 50)
        out.pollTimeoutS = v as number;
      else
        p.push(
          'CONFIG_FILE: telegram.pollTimeoutS must be an integer number of seconds from 0 to 50',
        );
    } else if (k === 'pollLeaseMs') {
      if (Number.isInteger(v) && (v as number) >= 1000) out.pollLeaseMs = v as number;
      else
        p.push(
          'CONFIG_FILE: telegram.pollLeaseMs must be an integer number of milliseconds ≥ 1000',
        );
    } else if (k === 'bots') {
      if (!Array.isArray(v)) p.push('CONFIG_FILE: telegram.bots must be a list');
      else
        v.forEach((b, i) => {
          const bot = parseBot(b, `CONFIG_FILE: telegram.bots[${i}]`, p, env, out.outbound);
          if (bot && out.bots.some((o) => o.id === bot.id))
            p.push(`CONFIG_FILE: telegram.bots[${i}].id "${bot.id}" is used twice`);
          else if (bot) out.bots.push(bot);
        });
    } else if (k !== 'outbound')
      p.push(
        `CONFIG_FILE: telegram.${k} is not a known option (apiRoot, webhookInfoPollMs, forwardTimeoutMs, pollTimeoutS, pollLeaseMs, bots, outbound)`,
      );
  }
  if (p.length > 0) throw new ConfigError(p);
  return out;
}

function parseBot(
  b: unknown,
  at: string,
  p: string[],
  env: Record<string, string | undefined>,
  outbound: OutboundSettings,
): BotConfig | undefined {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) {
    p.push(`${at} must be an object`);
    return undefined;
  }
  const o = b as Record<string, unknown>;
  const before = p.length;
  for (const k of Object.keys(o))
    if (!BOT_KEYS.includes(k)) p.push(`${at}.${k} is not a known option (${BOT_KEYS.join(', ')})`);
  if (typeof o.id !== 'string' || !ID.test(o.id)) p.push(`${at}.id must match [a-z0-9-]{1,32}`);
  if (o.username !== undefined && (typeof o.username !== 'string' || !USERNAME.test(o.username)))
    p.push(`${at}.username must be a bot username without "@"`);
  const token = readToken(o, at, p, env);
  const ingress = (o.ingress ?? 'webhook') as BotIngress;
  if (!BOT_INGRESS.includes(ingress))
    p.push(`${at}.ingress must be one of ${BOT_INGRESS.join(', ')}`);
  // A polling bot's webhook route is only called by its own poller: unset secrets are random per process.
  const polling = ingress === 'polling';
  const secrets = polling && o.secretTokens === undefined ? [randomSecret()] : o.secretTokens;
  const pathSecret = polling && o.pathSecret === undefined ? randomSecret() : o.pathSecret;
  if (!BOT_MODES.includes(o.mode as BotMode))
    p.push(`${at}.mode must be one of ${BOT_MODES.join(', ')}`);
  const webhook = o.mode !== 'outbound';
  if (!webhook)
    for (const k of WEBHOOK_KEYS.filter((w) => o[w] !== undefined))
      p.push(`${at}.${k}: an outbound-only bot (mode outbound) takes no webhook settings`);
  if (
    webhook &&
    (!Array.isArray(secrets) ||
      secrets.length < 1 ||
      secrets.length > 2 ||
      !secrets.every((s) => typeof s === 'string' && SECRET.test(s)))
  )
    p.push(`${at}.secretTokens must be [current, previous?], each 1–256 of A-Z a-z 0-9 _ -`);
  if (webhook && (typeof pathSecret !== 'string' || !PATH_SECRET.test(pathSecret)))
    p.push(`${at}.pathSecret must be 16–128 of A-Z a-z 0-9 _ -`);
  if (
    o.mode === 'forward' &&
    (typeof o.backendUrl !== 'string' || !/^https?:\/\/\S+$/.test(o.backendUrl))
  )
    p.push(`${at}.backendUrl must be an http(s) URL in forward mode`);
  const { buckets, chats } = botOutbound(o.outbound, outbound.buckets, at, p);
  const costs = { ...DEFAULT_COMMAND_COSTS };
  if (o.commandCosts !== undefined) {
    if (typeof o.commandCosts !== 'object' || o.commandCosts === null)
      p.push(`${at}.commandCosts must be a map`);
    else
      for (const [cmd, c] of Object.entries(o.commandCosts)) {
        if (!COMMAND.test(cmd) || !Number.isInteger(c) || (c as number) < 1)
          p.push(`${at}.commandCosts["${cmd}"]: a /command and an integer ≥ 1`);
        else costs[cmd] = c as number;
      }
  }
  const admins = o.adminUserIds ?? [];
  if (
    !Array.isArray(admins) ||
    !admins.every((a) => Number.isSafeInteger(a) || (typeof a === 'string' && /^\d{1,20}$/.test(a)))
  )
    p.push(`${at}.adminUserIds must be a list of Telegram user ids`);
  const groupScale = parseGroupScale(o.groupScale, at, p);
  if (o.failMode !== undefined && !['open', 'closed', 'local'].includes(o.failMode as string))
    p.push(`${at}.failMode must be one of open, closed, local`);
  const maxConnections = o.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (
    !Number.isInteger(maxConnections) ||
    (maxConnections as number) < 1 ||
    (maxConnections as number) > 100
  )
    p.push(`${at}.maxConnections must be an integer from 1 to 100 (Telegram's range)`);
  if (o.scope !== undefined && (typeof o.scope !== 'string' || !ID.test(o.scope)))
    p.push(`${at}.scope must match [a-z0-9-]{1,32}`);
  const apps = o.apps;
  if (
    apps !== undefined &&
    (!Array.isArray(apps) ||
      apps.length === 0 ||
      !apps.every((a) => typeof a === 'string' && APP_ID.test(a)))
  )
    p.push(`${at}.apps must be a non-empty list of app ids (the apps that may send through it)`);
  if (p.length > before || token === undefined) return undefined;
  return {
    id: o.id as string,
    username: o.username as string | undefined,
    token,
    fingerprint: tokenFingerprint(token),
    ...(webhook
      ? { secretTokens: secrets as [string, string?], pathSecret: pathSecret as string }
      : {}),
    mode: o.mode as BotMode,
    ingress,
    backendUrl: o.backendUrl as string | undefined,
    commandCosts: costs,
    adminUserIds: (admins as unknown[]).map(String),
    ...(groupScale ? { groupScale } : {}),
    failMode: o.failMode as BotConfig['failMode'],
    maxConnections: maxConnections as number,
    scope: (o.scope as string | undefined) ?? 'default',
    ...(apps !== undefined ? { apps: apps as string[] } : {}),
    ...(buckets ? { buckets } : {}),
    ...(chats ? { chats } : {}),
    tokenSource:
      typeof o.tokenFile === 'string' ? { file: o.tokenFile } : { env: o.tokenEnv as string },
  };
}

/** 32 random bytes, base64url: a secret token and path secret nobody configured (polling bots). */
function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

function readToken(
  o: Record<string, unknown>,
  at: string,
  p: string[],
  env: Record<string, string | undefined>,
): string | undefined {
  let token: string | undefined;
  if (typeof o.tokenFile === 'string' && o.tokenEnv === undefined) {
    try {
      token = readFileSync(o.tokenFile, 'utf8').trim();
    } catch (e) {
      p.push(
        `${at}.tokenFile "${o.tokenFile}" cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      );
      return undefined;
    }
  } else if (typeof o.tokenEnv === 'string' && o.tokenFile === undefined) {
    token = env[o.tokenEnv]?.trim();
    if (!token) {
      p.push(`${at}.tokenEnv: environment variable ${o.tokenEnv} is not set`);
      return undefined;
    }
  } else {
    p.push(`${at} needs exactly one of tokenFile, tokenEnv`);
    return undefined;
  }
  // The shape BotFather issues: <bot id>:<35 chars>. The token itself never enters a message.
  if (!/^\d{1,20}:[A-Za-z0-9_-]{20,}$/.test(token)) {
    p.push(`${at}: the bot token is not of the form <digits>:<secret>`);
    return undefined;
  }
  return token;
}

/** Reads a bot's token again from where it came from (a rotation); throws ConfigError when it is bad. */
export function reloadToken(
  bot: Pick<BotConfig, 'id' | 'tokenSource'>,
  env: Record<string, string | undefined> = readSecretEnv(),
): string {
  const p: string[] = [];
  const src = bot.tokenSource;
  const token = readToken(
    'file' in src ? { tokenFile: src.file } : { tokenEnv: src.env },
    `telegram bot ${bot.id}`,
    p,
    env,
  );
  if (token === undefined) throw new ConfigError(p);
  return token;
}

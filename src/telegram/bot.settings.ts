import { randomBytes } from 'node:crypto';
import { ID, parseBotOptions } from './bot-options.settings.js';
import { botOutbound } from './bot-outbound.settings.js';
import { readToken, tokenFingerprint } from './bot-token.js';
import type { OutboundSettings } from './outbound/outbound.settings.js';
import { BOT_INGRESS, BOT_MODES, BotIngress, BotConfig, BotMode } from './telegram.types.js';

const SECRET = /^[A-Za-z0-9_-]{1,256}$/;
const PATH_SECRET = /^[A-Za-z0-9_-]{16,128}$/;
const USERNAME = /^[A-Za-z0-9_]{3,64}$/;

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

/** Validates one `telegram.bots[i]`; pushes problems to `p`, undefined when it has any. */
export function parseBot(
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
  const options = parseBotOptions(o, at, p);
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
    ...options,
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

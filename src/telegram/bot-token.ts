import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config.error.js';
import { readSecretEnv } from '../config/secret-env.js';
import type { BotConfig } from './telegram.types.js';

/** Fingerprint of a bot token: enough to tell two apart, never enough to use one. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

/** Reads a bot's token from `tokenFile` or `tokenEnv` (exactly one); pushes problems to `p`. */
export function readToken(
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

import { ConfigError } from '../config/config.error.js';
import type { RampartConfig } from '../config/config.types.js';
import { readSecretEnv } from '../config/secret-env.js';
import { parseBot } from './bot.settings.js';
import { outboundSettings } from './outbound/outbound.settings.js';
import type { TelegramSettings } from './telegram.types.js';

export { DEFAULT_MAX_CONNECTIONS } from './bot-options.settings.js';
export { reloadToken, tokenFingerprint } from './bot-token.js';

/** Injection token of the validated TelegramSettings. */
export const TELEGRAM_SETTINGS = Symbol('TELEGRAM_SETTINGS');

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

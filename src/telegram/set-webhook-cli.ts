import { pathToFileURL } from 'node:url';
import { Api } from 'grammy';
import { ConfigError } from '../config/config.error.js';
import { loadConfig } from '../config/load-config.js';
import { telegramSettings } from './telegram.settings.js';

/** The update kinds Rampart classifies; Telegram sends only these to the webhook. */
export const ALLOWED_UPDATES = [
  'message',
  'edited_message',
  'callback_query',
  'inline_query',
  'my_chat_member',
  'channel_post',
] as const;

const USAGE =
  'usage: npm run telegram:set-webhook -- <botId> <public base URL, e.g. https://bots.example.com>';

export interface CliIo {
  env?: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
}

/**
 * `npm run telegram:set-webhook -- <botId> <base URL>`: calls setWebhook for
 * the bot with its webhook URL (`<base>/telegram/<botId>/<path secret>`), its
 * current secret token, the allowed update kinds and drop_pending_updates
 * off (nothing queued at Telegram is lost). Prints the bot's token
 * fingerprint and the URL without its path secret. Exit codes: 0 done, 1 the
 * Bot API refused, 2 bad usage (or an outbound-only bot), 78 bad configuration.
 */
export async function runSetWebhookCli(argv: string[], io: CliIo): Promise<number> {
  const [botId, base] = argv;
  if (argv.length !== 2 || !botId || !base || !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(base)) {
    io.err(USAGE);
    return 2;
  }
  let settings;
  try {
    // Only the `telegram:` section is needed: no policies.
    settings = telegramSettings(loadConfig(io.env ?? process.env, {}), io.env ?? process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.err(e.message);
    return 78;
  }
  const bot = settings.bots.find((b) => b.id === botId);
  if (!bot) {
    io.err(
      `no bot "${botId}" in CONFIG_FILE telegram.bots (known: ${settings.bots.map((b) => b.id).join(', ') || 'none'})`,
    );
    return 2;
  }
  if (bot.ingress === 'polling') {
    // Telegram refuses getUpdates while a webhook is set: the poller would stop getting updates.
    io.err(`bot "${botId}" has ingress: polling; a webhook would stop its getUpdates`);
    return 2;
  }
  if (!bot.secretTokens || !bot.pathSecret) {
    io.err(`bot ${bot.id} is outbound-only (mode outbound): it has no webhook to set`);
    return 2;
  }
  const hook = `${base.replace(/\/+$/, '')}/telegram/${bot.id}`;
  const api = new Api(bot.token, { apiRoot: settings.apiRoot });
  try {
    await api.setWebhook(`${hook}/${bot.pathSecret}`, {
      secret_token: bot.secretTokens[0],
      allowed_updates: [...ALLOWED_UPDATES],
      drop_pending_updates: false,
      max_connections: bot.maxConnections,
    });
  } catch (e) {
    io.err(
      `setWebhook failed for bot ${bot.id} (token ${bot.fingerprint}): ${(e as Error).message.replaceAll(bot.token, '<token>')}`,
    );
    return 1;
  }
  io.out(`webhook set for bot ${bot.id} (token ${bot.fingerprint}): ${hook}/<path secret>`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runSetWebhookCli(process.argv.slice(2), {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
  }).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}

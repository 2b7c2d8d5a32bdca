import { type Api, GrammyError } from 'grammy';
import type { BotApiClients } from '../bot-api-clients.js';
import { relayOf } from '../telegram-forward.js';
import type { BotConfig } from '../telegram.types.js';
import type { PolledUpdate } from './update-poller.js';

/** What getUpdates asks for: the updates the webhook is set up for (set-webhook-cli.ts). */
const ALLOWED_UPDATES = [
  'message',
  'edited_message',
  'callback_query',
  'inline_query',
  'my_chat_member',
  'channel_post',
] as const;
/** Methods a backend's answer may not have Rampart call on a polling bot: they would end the polling. */
const NOT_RELAYED = new Set(['getUpdates', 'setWebhook', 'deleteWebhook', 'logOut', 'close']);
const MAX_BACKOFF_MS = 30_000;

/** One long poll of a bot: up to 100 updates from `offset` (0: the first unconfirmed), waiting `timeoutS`. */
export function getUpdates(
  api: Api,
  offset: number,
  timeoutS: number,
  signal: AbortSignal,
): Promise<PolledUpdate[]> {
  return api.getUpdates(
    {
      ...(offset > 0 ? { offset } : {}),
      timeout: timeoutS,
      limit: 100,
      allowed_updates: [...ALLOWED_UPDATES],
    },
    // grammY types its signal as the abort-controller shim's; the platform one is what it uses.
    signal as unknown as Parameters<Api['getUpdates']>[1],
  ) as unknown as Promise<PolledUpdate[]>;
}

/** Milliseconds before the next poll after a failure: Telegram's retry_after, else 250 ms doubling to 30 s. */
export function pollBackoffMs(err: unknown, failures: number): number {
  const retryAfter = err instanceof GrammyError ? err.parameters.retry_after : undefined;
  if (retryAfter !== undefined) return retryAfter * 1000;
  return Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures, 8));
}

/**
 * Makes the Bot API call a backend put in its answer to a polled update (there is no webhook answer to
 * carry it), in the background; never one that would end the polling.
 */
export function relayAnswer(clients: BotApiClients, bot: BotConfig, body: string): void {
  const relay = relayOf(body);
  if (relay && !NOT_RELAYED.has(relay.method)) {
    const { method, ...params } = relay;
    clients.background(bot, `relayed ${method}`, (api) =>
      (api.raw as unknown as Record<string, (p: unknown) => Promise<unknown>>)[method]!(params),
    );
  }
}

import { markBackendCall, type AnyRequest } from '../http/http-context.js';
import type { ClassifiedUpdate } from './telegram-update.js';
import type { BotConfig } from './telegram.types.js';

/** Answer of a bot backend that Telegram may get back: a Bot API method call, or nothing. */
export type RelayBody = Record<string, unknown> & { method: string };

/** The backend failed (non-2xx, timeout, unreachable): the update must not be acknowledged. */
export class BackendUnavailableError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'BackendUnavailableError';
  }
}

/**
 * Forward mode: POSTs a verified, allowed update to the bot's backend, with
 * headers naming the verified bot and the decision. A 2xx answer whose body
 * is a Bot API method call (`{"method": …}`) is returned to Telegram
 * unchanged; any other failure throws, so the caller answers non-2xx and
 * Telegram redelivers (see docs/telegram.md#no-loss).
 */
export async function forwardUpdate(
  req: AnyRequest,
  bot: BotConfig,
  u: ClassifiedUpdate,
  opts: { timeoutMs: number; signal?: AbortSignal; decision: string },
): Promise<RelayBody | undefined> {
  const signals = [AbortSignal.timeout(opts.timeoutMs), ...(opts.signal ? [opts.signal] : [])];
  markBackendCall(req);
  let res: Response;
  try {
    res = await fetch(bot.backendUrl!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'rampart-telegram-bot': bot.id,
        'rampart-decision': opts.decision,
        'rampart-update-kind': u.kind,
      },
      body: JSON.stringify(u.update),
      signal: AbortSignal.any(signals),
    });
  } catch (e) {
    throw new BackendUnavailableError(undefined, `backend unreachable: ${(e as Error).name}`);
  }
  const text = await res.text().catch(() => '');
  if (res.status < 200 || res.status > 299)
    throw new BackendUnavailableError(res.status, `backend answered ${res.status}`);
  return relayOf(text);
}

/** The method call in a backend's webhook answer, when there is one; anything else is not relayed. */
export function relayOf(text: string): RelayBody | undefined {
  if (text.trim() === '') return undefined;
  try {
    const body = JSON.parse(text) as unknown;
    if (
      typeof body === 'object' &&
      body !== null &&
      !Array.isArray(body) &&
      typeof (body as { method?: unknown }).method === 'string' &&
      /^[A-Za-z]{1,64}$/.test((body as { method: string }).method)
    )
      return body as RelayBody;
  } catch {
    // Not JSON: a plain "ok" from the backend is an acknowledgement with nothing to relay.
  }
  return undefined;
}

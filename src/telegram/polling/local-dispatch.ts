import type { AddressInfo } from 'node:net';
import type { BotConfig } from '../telegram.types.js';
import { SECRET_TOKEN_HEADER } from '../telegram-lock-features.js';

/** The base URL this process's HTTP server answers on, from its bound address; undefined until it listens. */
export function ownBaseUrl(address: AddressInfo | string | null | undefined): string | undefined {
  if (!address || typeof address === 'string') return undefined;
  const any = address.address === '0.0.0.0' || address.address === '::';
  const host = any ? (address.family === 'IPv6' ? '::1' : '127.0.0.1') : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * Hands a polled update to this process's own webhook route, exactly as
 * Telegram would POST it: the same lock chain (secret token and path, the
 * dedup claim and every limit in one decision, the bot backend's breaker),
 * the same handler. Resolves with the answer's status and body.
 */
export async function dispatchLocally(
  base: string,
  bot: BotConfig,
  update: unknown,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  // A polling bot always has both (random per process when not configured); an outbound-only bot never polls.
  if (!bot.secretTokens || !bot.pathSecret) throw new Error(`bot ${bot.id} has no webhook route`);
  const res = await fetch(`${base}/telegram/${bot.id}/${bot.pathSecret}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SECRET_TOKEN_HEADER]: bot.secretTokens[0] },
    body: JSON.stringify(update),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: await res.text() };
}

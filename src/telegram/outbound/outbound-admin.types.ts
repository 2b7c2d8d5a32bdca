import type { BotStatus } from './outbound.types.js';
import type { BotQueue } from './outbound-queues.js';
import type { BotHealthView } from './worker/bot-health.js';

/** A bot as the admin API shows it: its state, health, queue share and token fingerprint. */
export interface BotView extends Omit<BotStatus, 'until'>, BotHealthView, Partial<BotQueue> {
  id: string;
  scope: string;
  /** Fingerprint of the token this instance holds (never the token). */
  token: string;
  until?: string;
  inflight: number;
  /** Telegram's answers to its sends over the last 15 minutes (every worker's), and how many were 429s. */
  answers_15m: number;
  rate_limited_15m: number;
  /** rate_limited_15m / answers_15m; null without answers. */
  rate_limited_ratio: number | null;
}

/** Thrown for an unknown bot or a token that cannot be read; the admin controller maps it. */
export class OutboundAdminError extends Error {
  constructor(
    readonly code: 'unknown_bot' | 'token_unreadable' | 'rotation_timeout',
    message: string,
  ) {
    super(message);
  }
}

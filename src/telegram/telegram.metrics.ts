import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';
import type { ClassifiedUpdate } from './telegram-update.js';
import { KNOWN_COMMANDS } from './telegram.types.js';

/** How an update ended. */
export type UpdateOutcome =
  | 'handled'
  | 'forwarded'
  | 'limited'
  | 'banned'
  | 'deduplicated'
  | 'malformed'
  | 'backend_unavailable';

/**
 * The Telegram product's series. Labels: bot id (configured, bounded), update kind,
 * command (known commands, `callback`, `inline`, `none`, else `other`) and outcome —
 * never a user id or a chat id.
 */
@Injectable()
export class TelegramMetrics {
  readonly updates: Counter<'bot' | 'kind' | 'command' | 'outcome'>;
  readonly told: Counter<'bot' | 'command' | 'how'>;

  constructor(m: MetricsService) {
    this.updates = m.counter(
      'rampart_telegram_updates_total',
      'Webhook updates by bot, kind, command and outcome (handled, forwarded, limited, banned, deduplicated, malformed, backend_unavailable)',
      ['bot', 'kind', 'command', 'outcome'],
    );
    this.told = m.counter(
      'rampart_telegram_told_total',
      'Limited users told how long to wait (once per window), by bot, command and how (message, callback)',
      ['bot', 'command', 'how'],
    );
  }

  update(bot: string, u: ClassifiedUpdate | undefined, outcome: UpdateOutcome): void {
    this.updates.inc({ bot, kind: u?.kind ?? 'malformed', command: commandLabel(u), outcome });
  }
}

/** A bounded label for the update's action. */
export function commandLabel(u: ClassifiedUpdate | undefined): string {
  const a = u?.action;
  if (a === undefined) return 'none';
  if (a === 'callback' || a === 'inline') return a;
  return (KNOWN_COMMANDS as readonly string[]).includes(a) ? a : 'other';
}

import { Injectable } from '@nestjs/common';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';

type L = 'bot' | 'method' | 'chat_type';

/**
 * The outbound sender's series, by bot, method and chat type (private,
 * group) — never by chat. `bot` is `none` when no bot was chosen.
 */
@Injectable()
export class OutboundMetrics {
  readonly sent: Counter<L>;
  readonly rateLimited: Counter<L>;
  readonly retries: Counter<L | 'why'>;
  readonly dead: Counter<L | 'reason'>;
  readonly authFailures: Counter<'bot'>;
  readonly collapsed: Counter<'method' | 'chat_type'>;
  readonly lag: Histogram<L>;
  readonly depth: Gauge;

  constructor(m: MetricsService) {
    this.sent = m.counter('rampart_telegram_out_sent_total', 'Messages Telegram accepted', [
      'bot',
      'method',
      'chat_type',
    ]);
    this.rateLimited = m.counter(
      'rampart_telegram_out_429_total',
      '429 answers (retry_after) received',
      ['bot', 'method', 'chat_type'],
    );
    this.retries = m.counter(
      'rampart_telegram_out_retries_total',
      'Sends tried again, by why (retryable, ambiguous, retry_after, revoked, forbidden: another bot, migrated: the new chat id)',
      ['bot', 'method', 'chat_type', 'why'],
    );
    this.dead = m.counter('rampart_telegram_out_dead_total', 'Jobs dead-lettered, by reason', [
      'bot',
      'method',
      'chat_type',
      'reason',
    ]);
    this.authFailures = m.counter(
      'rampart_telegram_out_auth_failures_total',
      '401 answers (the bot is marked revoked)',
      ['bot'],
    );
    this.collapsed = m.counter(
      'rampart_telegram_out_collapsed_total',
      'Waiting jobs replaced by a newer one with the same collapse_key',
      ['method', 'chat_type'],
    );
    this.lag = m.histogram(
      'rampart_telegram_out_queue_lag_seconds',
      'From a job being due (accepted or not_before) to Telegram accepting it',
      ['bot', 'method', 'chat_type'],
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    );
    this.depth = m.gauge('rampart_telegram_out_queue_depth', 'Jobs queued or being sent', []);
  }
}

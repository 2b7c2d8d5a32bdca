import { Injectable } from '@nestjs/common';
import type { Counter, Gauge } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';

/** Why a poller's step failed: the lease, its renewal, getUpdates, the offset commit, or the pipeline. */
export type PollFailure =
  'lease' | 'lease renewal' | 'getUpdates' | 'commit' | 'dispatch' | 'poller stopped';

/**
 * Long polling's series, by bot id (configured, bounded) — never a user or chat id:
 * updates fetched and handed on, failures by step, and whether this instance holds
 * the bot's poller lease (across instances, the sum is 1 while the bot is polled).
 */
@Injectable()
export class PollingMetrics {
  readonly fetched: Counter<'bot'>;
  readonly handled: Counter<'bot'>;
  readonly failures: Counter<'bot' | 'step'>;
  readonly active: Gauge<'bot'>;

  constructor(m: MetricsService) {
    this.fetched = m.counter(
      'rampart_telegram_poll_updates_total',
      'Updates fetched by getUpdates (long polling), by bot; a refetched update counts again',
      ['bot'],
    );
    this.handled = m.counter(
      'rampart_telegram_poll_handled_total',
      'Polled updates the pipeline took (any 2xx) and whose offset may move past them, by bot',
      ['bot'],
    );
    this.failures = m.counter(
      'rampart_telegram_poll_failures_total',
      'Long-polling failures by bot and step (lease, lease renewal, getUpdates, commit, dispatch)',
      ['bot', 'step'],
    );
    this.active = m.gauge(
      'rampart_telegram_poller_active',
      '1 while this instance holds the bot’s poller lease, else 0',
      ['bot'],
    );
  }
}

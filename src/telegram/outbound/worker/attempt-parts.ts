import type { Clock } from '../../../common/clock.js';
import type { SendGateStore } from '../gate/send-gate.store.js';
import type { OutboundMetrics } from '../outbound.metrics.js';
import type { OutboundSettings } from '../outbound.settings.js';
import type { OutboundQueueStore } from '../queue/outbound-queue.store.js';
import type { BotHealth } from './bot-health.js';
import type { BotPacing } from './bot-pacing.js';
import type { BotRouting } from './bot-routing.js';
import type { BotTokens } from './bot-tokens.js';

/** What a send attempt works with (one set per worker). */
export interface AttemptParts {
  queue: OutboundQueueStore;
  gate: SendGateStore;
  routing: BotRouting;
  pacing: BotPacing;
  tokens: BotTokens;
  health: BotHealth;
  settings: OutboundSettings;
  metrics: OutboundMetrics;
  clock: Clock;
}

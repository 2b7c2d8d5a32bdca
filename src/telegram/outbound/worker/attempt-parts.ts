import type { Clock } from '../../../common/clock.js';
import type { ChatMigrationStore } from '../gate/chat-migration.store.js';
import type { SendGateStore } from '../gate/send-gate.store.js';
import type { OutboundMetrics } from '../outbound.metrics.js';
import type { OutboundSettings, SendBucket } from '../outbound.settings.js';
import type { BotConfig } from '../../telegram.types.js';
import type { OutboundQueueStore } from '../queue/outbound-queue.store.js';
import type { BotHealth } from './bot-health.js';
import type { BotPacing } from './bot-pacing.js';
import type { BotRouting } from './bot-routing.js';
import type { BotTokens } from './bot-tokens.js';

/** What a send attempt works with (one set per worker). */
export interface AttemptParts {
  queue: OutboundQueueStore;
  gate: SendGateStore;
  migrations: ChatMigrationStore;
  routing: BotRouting;
  pacing: BotPacing;
  tokens: BotTokens;
  health: BotHealth;
  settings: OutboundSettings;
  metrics: OutboundMetrics;
  clock: Clock;
}

/**
 * The bot bucket a send is paced by: the bot's own (telegram.bots[].outbound.buckets) or the global one,
 * at most as fast as the departure window lets sends leave (`departMax` per `departWindowMs`): slots
 * reserved faster than that only wait again at their departure check (a Redis call each time).
 */
export function botBucket(bot: BotConfig, s: OutboundSettings): SendBucket {
  const b = (bot.buckets ?? s.buckets).bot;
  const windowRate = (s.departMax * 1000) / s.departWindowMs;
  return b.perSecond <= windowRate ? b : { ...b, perSecond: windowRate };
}

import type { Clock } from '../../../common/clock.js';
import type { TelegramBots } from '../../telegram-bots.js';
import type { ChatMigrationStore } from '../gate/chat-migration.store.js';
import type { SendGateStore } from '../gate/send-gate.store.js';
import type { OutboundMetrics } from '../outbound.metrics.js';
import type { OutboundQueueStore } from '../queue/outbound-queue.store.js';
import { BotHealth } from './bot-health.js';
import { BotPacing } from './bot-pacing.js';
import { BotRouting } from './bot-routing.js';
import { BotTokens } from './bot-tokens.js';
import { OutboundWorker } from './outbound-worker.js';
import { SendAttempt } from './send-attempt.js';

/** The worker of a process and the parts of it the rest of the sender reaches. */
export interface AssembledWorker {
  worker: OutboundWorker;
  routing: BotRouting;
  health: BotHealth;
  pacing: BotPacing;
}

/** Builds a worker from the stores and the bots' settings (`telegram.outbound`). */
export function assembleWorker(
  queue: OutboundQueueStore,
  gate: SendGateStore,
  migrations: ChatMigrationStore,
  bots: TelegramBots,
  metrics: OutboundMetrics,
  clock: Clock,
): AssembledWorker {
  const settings = bots.settings.outbound;
  const tokens = new BotTokens(bots.settings.apiRoot, settings.requestTimeoutMs);
  const health = new BotHealth(clock, settings.unhealthyAfter, settings.probeMs);
  const routing = new BotRouting(bots.all(), gate, clock, settings.registryRefreshMs, {
    streaks: health,
    probe: async (b) => {
      await tokens.api(b, (await gate.status(b.id)).gen).getMe();
      return true;
    },
  });
  const pacing = new BotPacing(clock);
  const attempt = new SendAttempt({
    queue,
    gate,
    migrations,
    routing,
    pacing,
    tokens,
    health,
    settings,
    metrics,
    clock,
  });
  return { worker: new OutboundWorker(queue, attempt, settings, clock), routing, health, pacing };
}

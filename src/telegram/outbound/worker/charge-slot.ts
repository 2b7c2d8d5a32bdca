import type { ChargeResult } from '../gate/send-gate.store.js';
import type { SendBucket } from '../outbound.settings.js';
import { chatKind } from '../outbound.types.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { BotConfig } from '../../telegram.types.js';
import type { AttemptParts } from './attempt-parts.js';

/**
 * Reserves the send's slot at the gate, at most `horizonMs` ahead: the bot bucket `botB` (botBucket), and
 * the method and chat buckets of the bot's own buckets (telegram.bots[].outbound.buckets), else the global ones.
 */
export function chargeSlot(
  p: AttemptParts,
  bot: BotConfig,
  lease: Lease,
  chatId: string,
  botB: SendBucket,
  horizonMs: number,
): Promise<ChargeResult> {
  const { job } = lease;
  const s = p.settings;
  const b = bot.buckets ?? s.buckets;
  return p.gate.charge({
    bot: bot.id,
    chatId,
    method: job.method,
    weight: s.methodWeights[job.method] ?? 1,
    sendId: lease.token,
    inflightMs: s.requestTimeoutMs + horizonMs + 1_000,
    buckets: {
      bot: botB,
      method: b.methods[job.method],
      chat: b[chatKind(chatId)],
    },
    maxWaitMs: horizonMs,
    aimd: { backoff: s.aimdBackoff, recoverPerSecond: s.aimdRecoverPerSecond },
  });
}

import type { ChargeResult } from '../gate/send-gate.store.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { BotConfig } from '../../telegram.types.js';
import type { AttemptParts } from './attempt-parts.js';
import { type CallOutcome, answerOf, callBotApi } from './bot-call.js';
import type { SendOutcome } from './send-outcome.js';

/**
 * The send that may leave: the Bot API call with the slot's token generation, then its settlement, with the
 * in-flight mark released at the gate (and the answer counted there) whatever happens.
 */
export async function sendAndSettle(
  p: AttemptParts,
  outcome: SendOutcome,
  lease: Lease,
  bot: BotConfig,
  c: Extract<ChargeResult, { kind: 'ok' }>,
  chatId: string,
): Promise<void> {
  const { job } = lease;
  let out: CallOutcome;
  try {
    const payload = { ...job.payload, chat_id: chatId };
    out = await callBotApi(p.tokens.api(bot, c.gen), job.method, payload);
    // Known the instant the answer is read, before any other await: no reserved send of the bot
    // leaves after this (the cooldown's jitter and the gate follow in settle).
    if (out.kind === 'retry_after')
      p.pacing.cooled(bot.id, p.clock.now() + out.seconds * 1000, 'answer');
  } catch (e) {
    await p.gate.release(bot.id, lease.token).catch(() => undefined);
    throw e;
  }
  // The in-flight mark goes in the same round trip as the settlement's first call (for a 429, the
  // cooldown the other workers read at their next check: one round trip after the answer, not two).
  const released = p.gate.release(bot.id, lease.token, answerOf(out)).catch(() => undefined);
  try {
    return await outcome.settle(lease, bot, out, c.chatNextMs - c.waitMs, chatId);
  } finally {
    await released;
  }
}

import {
  ANSWER_WINDOW_MS,
  type AnswerCounts,
  type SendAnswer,
  answerMinutes,
  minuteOf,
} from './answer-tally.js';
import type { RedisGateParts } from './redis-gate.parts.js';

/** Ends a send's in-flight mark and counts its answer (SendGateStore.release). */
export async function releaseSend(
  p: RedisGateParts,
  bot: string,
  sendId: string,
  answer?: SendAnswer,
): Promise<void> {
  // One round trip: the in-flight mark goes; an answer is counted in its minute (kept for the window) and
  // moves the send's departure record to now (lua/telegram_send_release.lua).
  const minute = p.key(bot, `a:${minuteOf(p.clock.now())}`);
  await p.redis.script(
    'telegram_send_release',
    [p.key(bot, 'f'), p.key(bot, 'd'), minute],
    [sendId, answer ?? '', ANSWER_WINDOW_MS + 120_000],
  );
}

/** The bot's answers and 429s over the answer window (SendGateStore.answers), summed over its minutes. */
export async function answerCounts(p: RedisGateParts, bot: string): Promise<AnswerCounts> {
  const rows = await p.redis.run('telegram.answers', async (c) => {
    const m = c.multi();
    for (const minute of answerMinutes(p.clock.now())) m.hmget(p.key(bot, `a:${minute}`), 'n', 'r');
    return (await m.exec()) ?? [];
  });
  const out = { answers: 0, rateLimited: 0 };
  for (const [, v] of rows) {
    const [n, r] = (v as (string | null)[] | null) ?? [];
    out.answers += Number(n ?? 0);
    out.rateLimited += Number(r ?? 0);
  }
  return out;
}

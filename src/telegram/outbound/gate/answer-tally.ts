/**
 * Telegram's answers to a bot's sends, counted per minute over the last
 * ANSWER_WINDOW_MS in the send gate (shared by every worker), so the admin
 * API can show a bot's 429 ratio whichever instance answers.
 */

/** What a send's answer counts as: accepted, a 429, or anything else Telegram (or the network) said. */
export type SendAnswer = 'ok' | 'rate_limited' | 'other';

/** The window the counts cover (milliseconds): the last 15 whole minutes and the current one. */
export const ANSWER_WINDOW_MS = 15 * 60_000;
const MINUTE = 60_000;

/** A bot's answers in the window. */
export interface AnswerCounts {
  answers: number;
  rateLimited: number;
}

/** The minute buckets (epoch minute numbers) the window covers at `now`, newest first. */
export function answerMinutes(now: number): number[] {
  const m = Math.floor(now / MINUTE);
  return Array.from({ length: ANSWER_WINDOW_MS / MINUTE + 1 }, (_, i) => m - i);
}

export function minuteOf(now: number): number {
  return Math.floor(now / MINUTE);
}

/** The in-memory tally (the memory gate's): per bot, per minute; old minutes are dropped as it goes. */
export class AnswerTally {
  /** Bots are the configured ones (bounded); each holds at most the window's minutes. */
  private readonly bots = new Map<string, Map<number, AnswerCounts>>();

  add(bot: string, answer: SendAnswer, now: number): void {
    let m = this.bots.get(bot);
    if (!m) this.bots.set(bot, (m = new Map()));
    const minute = minuteOf(now);
    const c = m.get(minute) ?? { answers: 0, rateLimited: 0 };
    c.answers++;
    if (answer === 'rate_limited') c.rateLimited++;
    m.set(minute, c);
    const oldest = answerMinutes(now).at(-1)!;
    for (const k of m.keys()) if (k < oldest) m.delete(k);
  }

  counts(bot: string, now: number): AnswerCounts {
    const m = this.bots.get(bot);
    const out = { answers: 0, rateLimited: 0 };
    for (const minute of answerMinutes(now)) {
      const c = m?.get(minute);
      out.answers += c?.answers ?? 0;
      out.rateLimited += c?.rateLimited ?? 0;
    }
    return out;
  }
}

/**
 * The bot's adaptive send rate (AIMD), shared by every worker through the
 * send gate: a 429 cuts the rate to `backoff` × the rate in force (once per
 * cooldown: the 429s of sends already in flight do not cut it again), and
 * from the cooldown's end it grows back by `recoverPerSecond` msg/s each
 * second up to the bucket's rate. A new bot (or one idle past its bucket's TTL)
 * starts at its rate in force, with no warm-up: its sends are one interval apart
 * from the first, and the departure window, which counts an answered send from its
 * answer, keeps a cold start's slow first calls from bunching at Telegram. Same
 * arithmetic as lua/telegram_send_charge.lua and lua/telegram_cooldown.lua (fields
 * `ar`, `af` of the bot's status hash).
 */
export interface AimdSettings {
  /** Factor applied to the rate on a 429 (0 < backoff < 1). */
  backoff: number;
  /** Msg/s regained per second without a 429. */
  recoverPerSecond: number;
}

/** The rate right after the last cut (msg/s) and when it starts to grow back (epoch ms). */
export interface AimdState {
  rate: number;
  from: number;
}

/** The lowest rate a cut leaves (msg/s). */
export const AIMD_MIN_PER_SECOND = 1;

export function aimdRate(cap: number, s: AimdState | undefined, now: number, a: AimdSettings) {
  if (!s) return cap;
  return Math.min(cap, s.rate + (a.recoverPerSecond * Math.max(0, now - s.from)) / 1000);
}

/** The state after a 429 at `now` that cools the bot until `until`; `cooling`: a cooldown was already in force. */
export function aimdCut(
  cap: number,
  s: AimdState | undefined,
  now: number,
  until: number,
  a: AimdSettings,
  cooling: boolean,
): AimdState {
  if (cooling && s) return { rate: s.rate, from: Math.max(s.from, until) };
  const rate = Math.max(AIMD_MIN_PER_SECOND, aimdRate(cap, s, now, a) * a.backoff);
  return { rate, from: until };
}
